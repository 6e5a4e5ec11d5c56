"""One thread lane of an exploration (run.py): its states' cells, state by state, the cells
on the state's own thread first, then the calls on copies (states.py) its pool still has
(shares.py), a copy serving the next cell too while the calls on it are refused; then, its
own states done, the copies left of the others'. The lane with `unloaded` first has an
earlier process make the unloaded threads and exit.
"""

from __future__ import annotations

import math
from typing import Any

from codex_probe.harness.jsonrpc.errors import NotificationTimeout, ServerError, TransportError
from codex_probe.probes.explore.home import ExploreHome
from codex_probe.probes.explore.lane import Lane
from codex_probe.probes.explore.not_run import ended, not_run
from codex_probe.probes.explore.parked import Parked, record_of
from codex_probe.probes.explore.plan import Cell
from codex_probe.probes.explore.record import CellRecord
from codex_probe.probes.explore.shares import HELPED, Placed, Pools, Share
from codex_probe.probes.explore.states import (
    EXEC_MARKER,
    NEW,
    THREAD_STATES,
    UNLOADED,
    StateUnreachable,
    Subject,
    ThreadLab,
)
from codex_probe.rig.wiretap import Wiretap

# The unloaded threads made ahead, as a share of the calls on one: a call codex refuses
# leaves its thread to the next, so only an answered one takes a thread of its own, and the
# earlier process makes each (a fork, 13 ms of codex's CPU) whether it is used or not.
# 52 to 57 % of the calls took one from 0.120.0 to 0.171.0 (27 of 52 to 53 of 97); a pool
# that runs dry is made again for the calls left (ThreadLab.copy), at the cost of a restart.
UNLOADED_AHEAD = 0.6


def unloaded_made_ahead(calls: int) -> int:
    """How many unloaded threads the earlier process makes for `calls` calls on one."""
    return math.ceil(calls * UNLOADED_AHEAD)


async def run_thread_lane(
    lane: Lane, share: Share, pools: Pools, methods: set[str]
) -> tuple[list[tuple[int, CellRecord]], dict[str, str | None]]:
    """The lane's states' cells, then the copies left of the others (shares.py; see the
    module); each record with the cell's place in the plan."""
    states: dict[str, str | None] = {}
    done: dict[int, CellRecord | Parked] = {}
    taken: list[Placed] = []  # what the lane has taken on, its own and from the pools
    # Nothing of its own: it starts an app-server only for enough to help with.
    helps = any(pools.worth_helping(s) for s in HELPED if s not in share.states)
    if not share.own and not any(pools.left(s) for s in share.states) and not helps:
        return [], states
    async with Wiretap(responder=lane.replies) as tap:
        with ExploreHome(tap.base_url, lane.outbound.env()) as home:
            try:
                lab = ThreadLab(await lane.open(tap, home), methods)
                if UNLOADED in share.states and pools.left(UNLOADED):
                    copies = unloaded_made_ahead(pools.left(UNLOADED))
                    states[UNLOADED] = await _reached(lab.prepare_unloaded(copies))
                    await lab.session.restart()
                for state in THREAD_STATES:
                    own = [placed for placed in share.own if placed[1].state == state]
                    if state in share.states and (own or pools.left(state)):
                        taken += own
                        await _run_state(lane, lab, state, own, pools, taken, done, states)
                for state in HELPED:
                    if state not in share.states and pools.worth_helping(state):
                        await _help(lane, lab, state, pools, taken, done)
                await lane.parked.settled()
                for entry in done.values():  # a parked cell's failure is the lane's, as any
                    if isinstance(entry, Parked) and (error := entry.task.exception()):
                        raise error
            except TransportError as error:
                await lane.parked.abandon()
                finished = {i: r for i, e in done.items() if (r := record_of(e)) is not None}
                # What it took on and did not finish, and what is left of its own states.
                rest = [placed for placed in taken if placed[0] not in finished]
                rest += [placed for state in share.states for placed in pools.take_all(state)]
                done = dict(finished)
                for (place, _), record in zip(
                    rest, ended(lane, [cell for _, cell in rest], error), strict=True
                ):
                    done[place] = record
            finally:
                await lane.parked.abandon()
                await lane.close()
    records = [(place, record_of(done[place])) for place in sorted(done)]
    assert all(record for _, record in records), "a parked cell ended without its record"
    # In the plan's order, as if none had been parked.
    order = {record.key: place for place, record in records if record is not None}
    lane.surprises.sort(key=lambda surprise: order.get(surprise.where, len(order)))
    return [(place, record) for place, record in records if record is not None], states


async def _reached(reaching: Any) -> str | None:
    """None once `reaching` (a coroutine bringing threads into a state) is done; else why
    the state could not be reached."""
    try:
        await reaching
    except (ServerError, StateUnreachable, NotificationTimeout) as why:
        return _why(why)
    return None


async def _run_state(
    lane: Lane,
    lab: ThreadLab,
    state: str,
    own: list[Placed],
    pools: Pools,
    taken: list[Placed],
    done: dict[int, CellRecord | Parked],
    states: dict[str, str | None],
) -> None:
    """A state the lane names: its cells on its own thread (`own`), then the calls on its
    copies, from the pool, until none is left. Not reached: the cells are not run, its
    pool's with them."""
    if state not in states:
        states[state] = await _reached(lab.reach(state))
    if states[state] is not None:
        why = f"{state} was not reached: {states[state]}"
        left = pools.take_all(state)
        taken += left
        for place, cell in own + left:
            done[place] = not_run(cell, why)
        return
    base = lab.bases[state]
    await lane.fence()  # what reaching it said is said before its first cell
    for place, cell in own:
        done[place] = await lane.run_cell(cell, base)
    await lane.let_go(base)
    await _run_copies(lane, lab, state, pools, taken, done)


async def _help(
    lane: Lane,
    lab: ThreadLab,
    state: str,
    pools: Pools,
    taken: list[Placed],
    done: dict[int, CellRecord | Parked],
) -> None:
    """Calls on copies of a state another lane names, taken from its pool: the state
    reached on this lane first (if it cannot be, the lane leaves them to that one)."""
    if state not in lab.bases and await _reached(lab.reach(state)) is not None:
        return
    await lane.fence()
    await lane.let_go(lab.bases[state])  # in flight: one turn held at a time, as at home
    await _run_copies(lane, lab, state, pools, taken, done)


async def _run_copies(
    lane: Lane,
    lab: ThreadLab,
    state: str,
    pools: Pools,
    taken: list[Placed],
    done: dict[int, CellRecord | Parked],
) -> None:
    """The calls on copies of `state` the pool still has, each on a copy; a copy serves the
    next call too while the calls on it are refused (a refusal leaves the thread as it
    was), but for one that ended its held turn (0.171.0 refuses a thread/revert to a turn
    nobody has in flight, and interrupts the turn) or said anything of the thread
    (`_changed_by_refusal`). In flight, one turn is held at a time: the base's is let go
    before the first copy holds its own (the wiretap lets every held answer go at once)."""
    copy: Subject | None = None
    while (placed := pools.take(state)) is not None:
        taken.append(placed)
        place, cell = placed
        if copy is None:
            try:
                copy = await lab.copy(state, wanted=pools.left(state) + 1)
            except (ServerError, StateUnreachable, NotificationTimeout) as why:
                done[place] = not_run(cell, f"no copy of {state}: {_why(why)}")
                continue
            await lane.fence()
        if cell.kind == "approval":
            cell = _approval_params(cell)
        # The unloaded state's process may restart for more copies: nothing parked there.
        record = await (
            lane.run_cell(cell, copy) if state == UNLOADED else lane.run_cell_or_park(cell, copy)
        )
        done[place] = record
        if isinstance(record, Parked):  # answered, or known to go unanswered: a new copy next
            copy = None
            continue
        if record.outcome == "refused" and copy.held and lane.waits.held_turn_ended(copy):
            lane.release(copy)  # the wiretap may still hold the ended turn's answer
            copy = None
        elif record.outcome != "refused" or _changed_by_refusal(cell, record, state):
            await lane.let_go(copy)
            copy = None
    if copy is not None:
        await lane.let_go(copy)


def _changed_by_refusal(cell: Cell, record: CellRecord, state: str) -> bool:
    """Whether a refused call may have left its copy other than it was, so that the next
    call gets a new one: codex said something of the thread (0.150.0 refuses a
    thread/rollback in flight and sets the thread's status to `systemError`: the next call
    on that copy saw another thread than its state's), or a new thread's read (a read that
    is refused may still have written the rollout: thread/read with its turns, measured on
    0.167.2), or an approval's turn."""
    return bool(record.notifications) or state == NEW or cell.kind == "approval"


def _approval_params(cell: Cell) -> Cell:
    params = {
        "threadId": "{{thread}}",
        "input": [{"type": "text", "text": f"{EXEC_MARKER} explore"}],
        "approvalPolicy": "untrusted",
    }
    return Cell(cell.method, cell.state, cell.variant, params, cell.kind, True, cell.answer)


def _why(error: BaseException) -> str:
    if isinstance(error, ServerError):
        return f"{error.method} refused: {error.code} {error.message}"
    return str(error).splitlines()[0]
