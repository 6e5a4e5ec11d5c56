"""The states of a thread the exploration asks its methods in, and how each is reached.

    none         no thread: a thread method is asked about an id nobody has
    new          a thread started, no turn yet (codex writes its rollout with the first)
    idle         a thread with one completed turn
    in-flight    an idle thread with a turn whose model answer is held back
    compacted    an idle thread compacted (thread/compact/start, to completion)
    archived     an idle thread archived
    forked       a fork of an idle thread
    rolled-back  a thread of two turns, the last rolled back (thread/rollback where the
                 release has it, else thread/revert before the last turn)
    unloaded     an idle thread of an earlier process of the same home, never loaded since

Each state is reached once (its *base*); a call that may change its thread gets a *copy*:
a fork of the base (idle, compacted, forked, rolled-back), a fork of the idle base then
archived (archived) or given a held turn (in-flight), a fork made by the earlier process
(unloaded, so it is not loaded either; made for the share of the calls measured to need
one, and made again, with a process of its own after, should they run out), or a thread
started for it (new). A copy made by
fork carries the base's history: for the call it is the state, plus the fork's
`forkedFromId`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from codex_probe.harness.jsonrpc.framing import Notification
from codex_probe.rig.captures import CapturedRequest
from codex_probe.rig.replies import Hold, Message, Reply, exec_command
from codex_probe.rig.session import Session, thread_of, turn_of

NONE = "none"
NEW = "new"
IDLE = "idle"
IN_FLIGHT = "in-flight"
COMPACTED = "compacted"
ARCHIVED = "archived"
FORKED = "forked"
ROLLED_BACK = "rolled-back"
UNLOADED = "unloaded"
# In the order their cells run (unloaded first: nothing of the process has touched it).
THREAD_STATES = (UNLOADED, NEW, IDLE, IN_FLIGHT, COMPACTED, ARCHIVED, FORKED, ROLLED_BACK)
STATES = (NONE, *THREAD_STATES)

# What a user message says to the wiretap's responder (`reply_for`).
HOLD_MARKER = "EXPLORE-HOLD"
HOLD_PATTERN = re.compile(HOLD_MARKER + r"-\d+")
EXEC_MARKER = "EXPLORE-EXEC"
# A held answer goes on when the exploration releases it, or after this long.
HOLD_DEADLINE_S = 60.0
# A held turn's model request comes within ms of turn/start on a quiet machine; under CI's
# load it came 12.6 s late, past a call's 10 s, and the exploration lost every cell. It is
# part of the turn, so it gets a whole turn's deadline (waits.py's TURN_DEADLINE_S).
HELD_REQUEST_WITHIN_S = 30.0
REPLY_TEXT = "explore reply"
# Every answer reports this usage: a goal with a budget of 1 token (fixtures.py) is spent
# by its first turn, where codex would otherwise pursue it turn after turn.
INPUT_TOKENS, OUTPUT_TOKENS = 10, 5
# Not on codex's list of known-safe commands (so the untrusted policy asks for it), and it
# writes nothing (so what it does is the same in any sandbox).
EXEC_COMMAND = "printf explore"


class Replies:
    """The wiretap's answers (its responder), by the marker of a model request's last user
    message: `EXPLORE-HOLD-N` holds the answer until released, every request with it
    until N is `released` (codex asking again for the same turn, after a steer or a
    resume, or asking something of its own about the turn, is held with it), and at once
    after; `EXPLORE-EXEC` asks to run a command (the request that carries its output gets
    text); anything else gets text."""

    def __init__(self) -> None:
        self.released: set[str] = set()

    def __call__(self, request: CapturedRequest) -> Reply:
        inputs = request.input_items()
        last = inputs[-1] if inputs else None
        if isinstance(last, dict) and last.get("type") == "function_call_output":
            return Reply(text=REPLY_TEXT, input_tokens=INPUT_TOKENS, output_tokens=OUTPUT_TOKENS)
        said = _last_user_text(inputs)
        hold = HOLD_PATTERN.search(said)
        if hold is not None and hold.group(0) not in self.released:
            return Reply(
                items=(Hold(HOLD_DEADLINE_S), Message(REPLY_TEXT)),
                input_tokens=INPUT_TOKENS,
                output_tokens=OUTPUT_TOKENS,
            )
        if EXEC_MARKER in said:
            return Reply(
                items=(exec_command(EXEC_COMMAND),),
                input_tokens=INPUT_TOKENS,
                output_tokens=OUTPUT_TOKENS,
            )
        return Reply(text=REPLY_TEXT, input_tokens=INPUT_TOKENS, output_tokens=OUTPUT_TOKENS)


def _last_user_text(inputs: list[Any]) -> str:
    for item in reversed(inputs):
        if isinstance(item, dict) and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, list):
                return " ".join(
                    str(part.get("text", "")) for part in content if isinstance(part, dict)
                )
            return str(content)
    return ""


@dataclass
class Subject:
    """A thread a cell is asked about, and its last turn (its held one, in flight)."""

    thread: str
    turn: str | None = None
    held: str | None = None
    # The marker of its held turn's user message (Replies).
    hold_marker: str | None = None


class StateUnreachable(Exception):
    """The release cannot be brought into a state (it lacks the method, or refused it)."""


@dataclass
class ThreadLab:
    """Threads on one session, brought into the states (see the module)."""

    session: Session
    methods: set[str]
    bases: dict[str, Subject] = field(default_factory=dict)
    # Copies made ahead of time (unloaded: by the earlier process), by state.
    pools: dict[str, list[Subject]] = field(default_factory=dict)
    holds: itertools.count[int] = field(default_factory=itertools.count)

    # ----- steps ------------------------------------------------------------------------

    async def start(self) -> Subject:
        thread = await self.session.start_thread()
        await self._announced(thread["id"])
        return Subject(thread["id"])

    async def turn(self, subject: Subject, text: str = "explore") -> None:
        completed = await self.session.run_turn(subject.thread, text)
        subject.turn = completed["id"]

    async def hold(self, subject: Subject) -> None:
        """A turn whose model answer is held: in flight until released. Its model request
        has arrived when this returns (a release before it arrives would not reach it)."""
        tap = self.session.tap
        marker = f"{HOLD_MARKER}-{next(self.holds)}"
        turn = await self.session.start_turn(subject.thread, f"{marker} explore")
        await tap.wait_for_requests(
            1,
            HELD_REQUEST_WITHIN_S,
            lambda request: request.is_model_request and marker in (request.body_text or ""),
        )
        subject.held = subject.turn = turn["id"]
        subject.hold_marker = marker

    async def fork(self, source: Subject) -> Subject:
        result = await self.session.request("thread/fork", {"threadId": source.thread})
        thread = result["thread"]
        await self._announced(thread["id"])
        turns = thread.get("turns") or []
        last = turns[-1].get("id") if turns and isinstance(turns[-1], dict) else source.turn
        return Subject(thread["id"], last)

    async def archive(self, subject: Subject) -> None:
        await self.session.request("thread/archive", {"threadId": subject.thread})
        await self._announced(subject.thread, "thread/archived")

    async def compact(self, subject: Subject) -> None:
        known = {subject.turn} if subject.turn else set()
        await self.session.compact(subject.thread, {t for t in known if t})

    async def roll_back(self, subject: Subject) -> None:
        """Two turns, the last rolled back."""
        await self.turn(subject)
        first = subject.turn
        await self.turn(subject)
        if "thread/rollback" in self.methods:
            await self.session.request(
                "thread/rollback", {"threadId": subject.thread, "numTurns": 1}
            )
        elif "thread/revert" in self.methods:
            await self.session.request(
                "thread/revert", {"threadId": subject.thread, "beforeTurnId": subject.turn}
            )
            await self._announced(subject.thread, "thread/reverted")
        else:
            raise StateUnreachable("the release has neither thread/rollback nor thread/revert")
        subject.turn = first

    async def _announced(self, thread_id: str, method: str = "thread/started") -> None:
        """Wait for the notification announcing what was done to `thread_id`, so it does
        not fall into the next call's notifications."""
        await self.session.wait_for(method, _about(thread_id))

    # ----- states -----------------------------------------------------------------------

    async def reach(self, state: str) -> Subject:
        """The base of `state` (reached on first use)."""
        if state in self.bases:
            return self.bases[state]
        if state == FORKED:
            base = await self.fork(await self.reach(IDLE))
        elif state == NEW:
            base = await self.start()
        else:
            base = await self.start()
            if state == ROLLED_BACK:
                await self.roll_back(base)
            else:
                await self.turn(base)
            if state == IN_FLIGHT:
                await self.hold(base)
            elif state == COMPACTED:
                await self.compact(base)
            elif state == ARCHIVED:
                await self.archive(base)
        self.bases[state] = base
        return base

    async def copy(self, state: str, wanted: int = 1) -> Subject:
        """A thread of its own in `state`, for one call (of `wanted` calls still to come in
        the state: an unloaded pool that has run dry is made again for all of them)."""
        pool = self.pools.get(state)
        if pool:
            return pool.pop(0)
        if state == UNLOADED:
            if UNLOADED not in self.bases:
                raise StateUnreachable("no unloaded thread was made for this call")
            await self.refill_unloaded(max(1, wanted))
            return self.pools[UNLOADED].pop(0)
        if state == NEW:
            return await self.start()
        if state in (ARCHIVED, IN_FLIGHT):
            copy = await self.fork(await self.reach(IDLE))
            if state == ARCHIVED:
                await self.archive(copy)
            else:
                await self.hold(copy)
            return copy
        return await self.fork(await self.reach(state))

    async def prepare_unloaded(self, copies: int) -> None:
        """On the earlier process: the unloaded base and `copies` forks of it, which the
        next process on the home finds on disk only."""
        base = await self.start()
        await self.turn(base)
        self.bases[UNLOADED] = base
        self.pools[UNLOADED] = [await self.fork(base) for _ in range(copies)]

    async def refill_unloaded(self, copies: int) -> None:
        """`copies` more unloaded threads: forks of the unloaded base (which no call is
        asked about: it is as the earlier process left it), then a process of its own for
        what follows, which finds them on disk only."""
        base = self.bases[UNLOADED]
        self.pools[UNLOADED] = [await self.fork(base) for _ in range(copies)]
        await self.session.restart()


def _about(thread_id: str) -> Callable[[Notification], bool]:
    return lambda note: thread_of(note) == thread_id


def turn_notification(note: Notification, thread_id: str) -> str | None:
    """The turn a turn/started or turn/completed of `thread_id` is about (None if it is
    not one)."""
    if note.method not in ("turn/started", "turn/completed") or thread_of(note) != thread_id:
        return None
    turn = turn_of(note)
    return None if turn is None else str(turn)
