"""One exploration of a release: every cell of its plan, on the rig's Session, in lanes
(lane.py), then its random walks (walks.py).

Seven lanes run at once, each on its own isolated home, wiretap and app-server:

- three `none` lanes: the cells of the state `none`, in the plan's order, the valid ones one
  by one: one lane the reads (`Plan.none_reads`: they change nothing, so a home of their
  own is the home they found before), one the writes that may wait long for a notification
  (`_waits_apart`), the third thread/start, the other writes and accounts, then every
  invalid call, a few at once;
- four thread lanes (thread_lane.py), the thread states shared out between them
  (THREAD_LANES, shares.py: a state's calls on its own thread on the first lane that names
  it, its calls on copies in a pool): the one with `unloaded` first has an earlier process
  make the unloaded threads and exit; then each asks its states' cells, state by state: the
  cells on the state's own thread first, then the calls on copies (states.py) the pool
  still has, a copy serving the next cell too while the calls on it are refused; then, its
  own states done, the copies left of the others' (each lane reaches a state itself). A
  cell on a copy left only waiting waits beside the next ones (parked.py), and the lane
  waits for it before it ends.

A lane whose app-server stops leaves its remaining cells `not run`, with why, and a Surprise.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from codex_probe.harness.codex.validator import MessageValidator
from codex_probe.harness.jsonrpc.errors import TransportError
from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.probes.explore.home import ExploreHome
from codex_probe.probes.explore.lane import INVALID_AT_ONCE, Lane
from codex_probe.probes.explore.not_run import ended, not_run
from codex_probe.probes.explore.outbound import Outbound
from codex_probe.probes.explore.plan import FULL, MINIMAL, Cell, Plan, make_plan, none_group
from codex_probe.probes.explore.record import CellRecord, ExplorationRecord, Surprise
from codex_probe.probes.explore.shares import share_out
from codex_probe.probes.explore.states import (
    ARCHIVED,
    COMPACTED,
    FORKED,
    IDLE,
    IN_FLIGHT,
    NEW,
    NONE,
    ROLLED_BACK,
    THREAD_STATES,
    UNLOADED,
    ThreadLab,
)
from codex_probe.probes.explore.thread_lane import run_thread_lane
from codex_probe.probes.explore.unanswered import Unanswered
from codex_probe.probes.explore.waits import waits_long
from codex_probe.probes.explore.walks import DEFAULT_STEPS, WalkResult, draw, walk
from codex_probe.rig.backends import Backend
from codex_probe.rig.wiretap import Wiretap


async def run_none_lane(lane: Lane, cells: list[Cell]) -> list[CellRecord]:
    """The cells of the state `none`: the valid ones one by one, then the invalid ones
    INVALID_AT_ONCE at a time (codex refuses them as it reads them; an invalid call it
    takes after all is recorded as answered, its notifications are not read)."""
    if not cells:
        return []
    done: list[CellRecord] = []
    async with Wiretap(responder=lane.replies) as tap:
        with ExploreHome(tap.base_url, lane.outbound.env()) as home:
            try:
                await lane.open(tap, home)
                valid = [cell for cell in cells if cell.kind != "invalid"]
                invalid = [cell for cell in cells if cell.kind == "invalid"]
                for cell in valid:
                    done.append(await lane.run_cell(cell, None))
                for start in range(0, len(invalid), INVALID_AT_ONCE):
                    chunk = invalid[start : start + INVALID_AT_ONCE]
                    done += await asyncio.gather(*(lane.run_invalid(cell) for cell in chunk))
            except TransportError as error:
                done += ended(lane, cells[len(done) :], error)
            finally:
                await lane.close()
    return done


# The thread states, shared out between four lanes that run at once (a process each). A
# lane waits out what a release never sends (0.121.0: eight turn/interrupt calls left
# unanswered, 10 s each); lanes wait side by side: `explore --walks 0` on 0.121.0
# 105 s with two lanes, 60 s with three; 0.171.0 27-32 s and 23 s, the same CPU.
# A state two lanes name is shared between them (shares.py): `in-flight` took 14.5 s of
# 0.171.0's 22 s on one lane (most of it the 0.5 s each answered call may take to end the
# held turn). In a probe the scenarios share the two CPUs with the exploration, which ends
# last: on 0.171.0 its lanes ended between 17 and 19 s with these four, where three ended
# at 21 to 25 s (`unloaded` makes its copies first, 97 forks, and `idle` has 146 calls).
# `rolled-back` (67 calls, 1.5 s, and its reaching) went with `idle`, which ended 3 s before
# the lane of `in-flight` and `compacted` (0.171.0 in a probe: the last thread lane ended at
# 15.7 s, then 14.3 and 15.6 s). Since the copies are pooled (shares.py), the states a
# lane names say where it starts; the copies of the heavy states end up spread over all.
# The `none` lanes: the reads, the calls that wait long for a notification (`waits_long`:
# imports that never complete, 10 s on 0.171.0), and the rest (`run_none_lane`).
NONE_LANES = 3
THREAD_LANES = (
    (UNLOADED, ARCHIVED, FORKED),
    (NEW, IN_FLIGHT),
    (IN_FLIGHT, COMPACTED),
    (IDLE, ROLLED_BACK),
)


def _waits_apart(cell: Cell) -> bool:
    """Whether a valid call of `none` runs on the lane of long waits: it may wait long
    (`waits_long`) and changes nothing another call reads (a login does: the account's calls
    keep their order)."""
    return waits_long(cell.method) and none_group(cell.method) == "write"


async def explore(
    backend: Backend,
    *,
    seed: int = 0,
    only: set[str] | None = None,
    plan: Plan | None = None,
    on_cell: Callable[[CellRecord], None] = lambda record: None,
    on_lane: Callable[[Transcript], None] = lambda transcript: None,
    sweep: bool = True,
    walks: int = 0,
    steps: int = DEFAULT_STEPS,
    walk_variants: tuple[str, ...] = (MINIMAL, FULL),
    unanswered: Unanswered | None = None,
) -> ExplorationRecord:
    """Every cell of the release's plan (or only those named), on `backend`, unless not
    `sweep`; then `walks` random walks of `steps` steps, seeded `seed`, `seed + 1`...
    `on_lane` is given each lane's transcript as the lane ends (bench/probes.py replays
    them). A walk's calls are the plan's `walk_variants` in `idle`. `unanswered`: what
    explorations before this one learnt goes unanswered (a history's earlier releases);
    None: this one learns alone."""
    schema_dir = backend.schema_dir
    plan = plan or make_plan(schema_dir)
    if only:
        plan = plan.only(only)
    record = ExplorationRecord(backend.version, seed, plan.methods)
    record.unsent = [{"method": u.method, "variant": u.variant, "why": u.why} for u in plan.unsent]
    validator = MessageValidator(schema_dir)
    # What the lab may use to reach a state: the release's methods, not only those of the
    # cells asked for (`--cell` of a rolled-back cell still needs thread/rollback).
    release_methods = set(validator.methods("client request"))

    def reproduce(key: str) -> str:
        return f"codex-probe explore --codex {backend.version} --walks 0 --cell '{key}'"

    outbounds = [Outbound() for _ in range(NONE_LANES + len(THREAD_LANES) + walks)]
    async with contextlib.AsyncExitStack() as stack:
        for outbound in outbounds:  # one per lane: a cell's outbound requests are its lane's
            await stack.enter_async_context(outbound)

        if unanswered is None:  # what one lane learns goes unanswered, every lane knows
            unanswered = Unanswered()

        def lane(name: str, outbound: Outbound) -> Lane:
            return Lane(
                name,
                backend,
                outbound,
                validator,
                reproduce,
                unanswered=unanswered,
                on_cell=on_cell,
                on_end=on_lane,
            )

        none_lane = lane("none", outbounds[0])
        reads_lane = lane("none reads", outbounds[1])
        waits_lane = lane("none waits", outbounds[2])
        thread_lanes = [
            lane(f"threads {n}", outbounds[NONE_LANES + n]) for n, _ in enumerate(THREAD_LANES)
        ]
        reads = plan.none_reads() if sweep else []
        read_keys = {cell.key for cell in reads}
        rest = [c for c in plan.in_state(NONE) if c.key not in read_keys] if sweep else []
        waits = [c for c in rest if c.kind == "valid" and _waits_apart(c)]
        wait_keys = {cell.key for cell in waits}
        none_cells = [c for c in rest if c.key not in wait_keys]
        shares, pools = share_out(plan.cells if sweep else [], THREAD_LANES)
        async with asyncio.TaskGroup() as group:
            reads_run = group.create_task(run_none_lane(reads_lane, reads))
            waits_run = group.create_task(run_none_lane(waits_lane, waits))
            none_run = group.create_task(run_none_lane(none_lane, none_cells))
            thread_runs = [
                group.create_task(run_thread_lane(lane, share, pools, release_methods))
                for lane, share in zip(thread_lanes, shares, strict=True)
            ]
        record.cells = reads_run.result() + waits_run.result() + none_run.result()
        # Every lane takes its states' pools to the end, or their rest as it stops.
        for state in THREAD_STATES:
            record.cells += [not_run(c, "no lane took it") for _, c in pools.take_all(state)]
        record.states = {NONE: None}
        for run in thread_runs:
            placed, reached = run.result()
            record.cells += [cell for _, cell in placed]
            for state, why in reached.items():  # a state two lanes reach: either's failure
                record.states[state] = record.states.get(state) or why
        order = {cell.key: number for number, cell in enumerate(plan.cells)}
        record.cells.sort(key=lambda cell: order.get(cell.key, len(order)))
        record.surprises = (
            reads_lane.surprises
            + waits_lane.surprises
            + none_lane.surprises
            + [s for lane in thread_lanes for s in lane.surprises]
        )
        for number in range(walks):
            walk_lane = lane("walk", outbounds[NONE_LANES + len(THREAD_LANES) + number])
            result = await run_walk(
                walk_lane,
                plan,
                release_methods,
                seed + number,
                steps,
                backend.version,
                walk_variants,
            )
            record.walks.append(result.to_json())
            if result.surprise is not None:
                record.surprises.append(result.surprise)
        asked = {host for outbound in outbounds for host in outbound.asked}
        record.outbound = {"asked": sorted(asked)}
    return record


async def run_walk(
    lane: Lane,
    plan: Plan,
    release_methods: set[str],
    seed: int,
    steps: int,
    version: str,
    variants: tuple[str, ...] = (MINIMAL, FULL),
) -> WalkResult:
    """The walk of `seed` on a lane of its own."""
    drawn = draw(seed, plan, steps, variants)
    async with Wiretap(responder=lane.replies) as tap:
        with ExploreHome(tap.base_url, lane.outbound.env()) as home:
            try:
                lab = ThreadLab(await lane.open(tap, home), release_methods)
                return await walk(lane, lab, seed, drawn, version)
            except TransportError as error:
                what = f"the app-server stopped before the walk: {error.summary}"
                reproduce = (
                    f"codex-probe explore --codex {version} --seed {seed} --walks 1 --no-sweep"
                )
                found = WalkResult(seed, drawn)
                found.surprise = Surprise(what, f"walk {seed}", (), reproduce)
                return found
            finally:
                await lane.close()
