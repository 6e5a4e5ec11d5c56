"""A hypothesis state machine over the thread and turn lifecycle (CONF-LIFECYCLE-001).

One example is one app-server process (a restart is a step) on its own wiretap and
home, driven through up to eight steps: start a thread, run a turn, hold a turn
(the wiretap keeps its answer back), steer, interrupt, compact, read, unsubscribe,
resume (loaded, unsubscribed, after a restart) and restart. Parameters are drawn
from the version's schema. A model (codex_probe/conformance/thread_model.py) predicts each answer;
the invariants hold after every step: every request got exactly one response,
turn/started and turn/completed pair up, thread statuses move only along legal edges,
and the server is still up.

The machine is one class; make_machine() gives each target a subclass carrying its
configuration and the strategies of its schema, which the rules draw from through
hypothesis's runner (the machine running the example).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar, cast

from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from codex_probe.conformance import invariants, strategies
from codex_probe.conformance.holds import Holds, hold_turn
from codex_probe.conformance.prestart import Prestarter
from codex_probe.conformance.resume import resume_thread
from codex_probe.conformance.shapes import (
    NO_ACTIVE_TURN_TO_STEER,
    WRONG_ACTIVE_TURN,
    expect_refusal,
)
from codex_probe.conformance.thread_model import ThreadModel
from codex_probe.conformance.wire import WireLog
from codex_probe.rig.backends import Backend
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.session import Session
from codex_probe.rig.wiretap import Wiretap

MAX_THREADS = 3
# What every process is sent before the first step asks it anything.
HANDSHAKE = ("initialize", "initialized")
T = TypeVar("T")
# The thread/start and thread/resume fields the machine varies.
VARIED_FIELDS = ["baseInstructions", "developerInstructions", "sandbox", "approvalPolicy"]


@dataclass(frozen=True)
class MachineConfig:
    backend: Backend
    timeout: float
    wire_log: WireLog
    source: str
    # Owns the event loop every example runs on, and starts each example's process.
    prestarter: Prestarter


@dataclass(frozen=True)
class LifecycleDraws:
    """The strategies of one version's schema the rules draw their parameters from."""

    start_params: st.SearchStrategy[dict[str, Any]]
    resume_params: st.SearchStrategy[dict[str, Any]]
    text: st.SearchStrategy[str]
    include_turns: st.SearchStrategy[bool]

    @classmethod
    def of(cls, schema: Path) -> LifecycleDraws:
        read_params = strategies.params_schema(schema, "ThreadReadParams")
        include_turns = strategies.from_schema(read_params["properties"]["includeTurns"], {})
        return cls(
            start_params=strategies.params(schema, "ThreadStartParams", VARIED_FIELDS),
            resume_params=strategies.params(schema, "ThreadResumeParams", VARIED_FIELDS),
            text=strategies.user_text(schema),
            include_turns=include_turns if include_turns is not None else st.booleans(),
        )


def drawn(pick: Callable[[LifecycleDraws], st.SearchStrategy[T]]) -> st.SearchStrategy[T]:
    """A rule argument drawn from the running machine's schema (each target has its own)."""
    return st.runner().flatmap(lambda machine: pick(machine.draws))


class LifecycleMachine(RuleBasedStateMachine):
    """The machine of no target in particular: make_machine() gives each target its own."""

    # Set per target by make_machine().
    config: ClassVar[MachineConfig]
    draws: ClassVar[LifecycleDraws]

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[ThreadModel] = []
        self.session: Session | None = None
        self.tap: Wiretap | None = None
        self.home: IsolatedHome | None = None
        self.holds = Holds()

    # ----- plumbing -----------------------------------------------------------------

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        # A last-resort deadline over the step; each request has its own. On Ctrl-C the
        # step is cancelled and ends here, while its home still exists, so teardown finds
        # nothing half-started (no second error chained to the interrupt).
        return self.config.prestarter.run(work, timeout=self.config.timeout * 4)

    @property
    def s(self) -> Session:
        assert self.session is not None
        return self.session

    def pick(self, data: st.DataObject, candidates: list[ThreadModel]) -> ThreadModel:
        name = data.draw(st.sampled_from([t.name for t in candidates]), label="thread")
        return next(t for t in candidates if t.name == name)

    def ready(self) -> list[ThreadModel]:
        return [t for t in self.threads if t.ready]

    @initialize(params=drawn(lambda d: d.start_params))
    def boot(self, params: dict[str, Any]) -> None:
        """A process on a fresh home, with a first thread (every example has one)."""
        booted = self.config.prestarter.take()
        self.tap, self.home, self.session = booted.tap, booted.home, booted.session
        self.holds = booted.holds
        self.start_thread(params)

    def teardown(self) -> None:
        try:
            if self.session is not None:
                self.run(self.session.close())
                for number, record in enumerate(self.session.processes, start=1):
                    self.config.wire_log.add(
                        self.config.backend.label,
                        f"{self.config.source} (lifecycle process {number})",
                        record.entries,
                    )
            if self.tap is not None:
                self.run(self.tap.close())
        finally:
            if self.home is not None:
                self.home.cleanup()

    # ----- rules --------------------------------------------------------------------

    @precondition(lambda self: len(self.threads) < MAX_THREADS)
    @rule(params=drawn(lambda d: d.start_params))
    def start_thread(self, params: dict[str, Any]) -> None:
        """thread/start with parameters from the schema; thread/started must follow."""
        thread = self.run(self.s.start_thread(**params))
        assert thread.get("status") == {"type": "idle"}, thread.get("status")
        assert thread.get("turns") == [], thread.get("turns")
        self.run(self.s.wait_thread("thread/started", thread["id"]))
        self.threads.append(ThreadModel(f"t{len(self.threads) + 1}", thread["id"]))

    @precondition(lambda self: any(t.ready for t in self.threads))
    @rule(data=st.data(), words=drawn(lambda d: d.text))
    def run_turn(self, data: st.DataObject, words: str) -> None:
        thread = self.pick(data, self.ready())
        turn = self.run(self.s.run_turn(thread.id, words))
        assert turn["status"] == "completed", turn
        thread.turn_ids.append(turn["id"])
        thread.materialized = True

    @precondition(lambda self: any(t.ready for t in self.threads))
    @rule(data=st.data(), words=drawn(lambda d: d.text))
    def hold_turn(self, data: st.DataObject, words: str) -> None:
        thread = self.pick(data, self.ready())
        turn, marker = self.run(hold_turn(self.s, self.holds, thread.id, words))
        thread.active, thread.marker, thread.materialized = turn["id"], marker, True

    @precondition(lambda self: any(t.loaded and t.subscribed for t in self.threads))
    @rule(data=st.data(), words=drawn(lambda d: d.text), right=st.booleans())
    def steer(self, data: st.DataObject, words: str, right: bool) -> None:
        thread = self.pick(data, [t for t in self.threads if t.loaded and t.subscribed])
        expected = thread.active if (right and thread.active) else str(uuid.uuid4())
        params = {
            "threadId": thread.id,
            "expectedTurnId": expected,
            "input": [{"type": "text", "text": words, "text_elements": []}],
        }
        answer = self.s.request("turn/steer", params)
        if thread.active is None:
            self.run(expect_refusal(answer, NO_ACTIVE_TURN_TO_STEER))
        elif right:
            assert self.run(answer) == {"turnId": thread.active}
        else:
            refusal = expect_refusal(
                answer, WRONG_ACTIVE_TURN, expected=expected, actual=thread.active
            )
            self.run(refusal)

    @precondition(lambda self: any(t.active for t in self.threads))
    @rule(data=st.data())
    def interrupt(self, data: st.DataObject) -> None:
        thread = self.pick(data, [t for t in self.threads if t.active])
        assert thread.active is not None and thread.marker is not None
        turn_id = thread.active
        answer = self.run(
            self.s.request("turn/interrupt", {"threadId": thread.id, "turnId": turn_id})
        )
        assert answer == {}, answer
        turn = self.run(self.s.wait_turn("turn/completed", turn_id))["turn"]
        self.holds.release(thread.marker)
        thread.active = thread.marker = None
        thread.turn_ids.append(turn_id)
        assert turn["status"] == "interrupted", turn

    @precondition(lambda self: any(t.ready for t in self.threads))
    @rule(data=st.data())
    def compact(self, data: st.DataObject) -> None:
        thread = self.pick(data, self.ready())
        answer, turn = self.run(self.s.compact(thread.id, set(thread.turn_ids)))
        assert answer == {}, answer
        assert turn["status"] == "completed", turn
        thread.turn_ids.append(turn["id"])
        thread.materialized = True

    def readable(self) -> list[ThreadModel]:
        return [t for t in self.threads if t.readable]

    @precondition(lambda self: bool(self.readable()))
    @rule(data=st.data(), with_turns=drawn(lambda d: d.include_turns))
    def read(self, data: st.DataObject, with_turns: bool) -> None:
        thread = self.pick(data, self.readable())
        with_turns = with_turns and thread.materialized
        result = self.run(
            self.s.request("thread/read", {"threadId": thread.id, "includeTurns": with_turns})
        )["thread"]
        assert result["id"] == thread.id, result["id"]
        assert result["status"]["type"] == thread.expected_status(), (
            f"{thread}: status {result['status']}, expected {thread.expected_status()}"
        )
        if with_turns:
            invariants.check_turns(thread.turn_ids, thread.active, result["turns"])

    @precondition(lambda self: any(t.ready for t in self.threads))
    @rule(data=st.data())
    def unsubscribe(self, data: st.DataObject) -> None:
        thread = self.pick(data, self.ready())
        answer = self.run(self.s.request("thread/unsubscribe", {"threadId": thread.id}))
        assert answer == {"status": "unsubscribed"}, answer
        thread.subscribed = False
        if not thread.materialized:
            self.threads.remove(thread)

    def resumable(self) -> list[ThreadModel]:
        return [t for t in self.threads if t.resumable]

    @precondition(lambda self: bool(self.resumable()))
    @rule(data=st.data(), params=drawn(lambda d: d.resume_params))
    def resume(self, data: st.DataObject, params: dict[str, Any]) -> None:
        thread = self.pick(data, self.resumable())
        result = self.run(resume_thread(self.s, thread.id, **params))
        thread.loaded = thread.subscribed = True
        assert result["status"]["type"] == thread.expected_status(), result["status"]
        invariants.check_turns(thread.turn_ids, thread.active, result["turns"])

    def can_restart(self) -> bool:
        """A thread with a turn to survive it, no turn in flight, and a process that was
        asked something beyond its handshake: one asked nothing stands where a new one
        would, so a restart right after a restart only costs a process start (before this
        rule, 7 in 10 restarts were such repeats)."""
        sent = self.s.processes[-1].messages("send")
        return (
            any(t.materialized for t in self.threads)
            and not any(t.active for t in self.threads)
            and any(message.get("method") not in HANDSHAKE for message in sent)
        )

    @precondition(lambda self: self.can_restart())
    @rule()
    def restart(self) -> None:
        """A new process on the same home; only threads with a turn survive in the model."""
        code = self.run(self.s.close_current())
        assert code == 0, f"the server exited with {code} when its stdin closed"
        self.run(self.s.open())
        for thread in self.threads:
            thread.loaded, thread.subscribed = False, True
        self.threads = [t for t in self.threads if t.materialized]

    # ----- invariants ---------------------------------------------------------------

    @invariant()
    def every_request_got_exactly_one_response(self) -> None:
        if self.session is not None:
            for record in self.session.processes:
                invariants.check_one_response_each(record.entries)

    @invariant()
    def turns_start_and_complete_in_pairs(self) -> None:
        if self.session is not None:
            active = {t.active for t in self.threads if t.active}
            for number, record in enumerate(self.session.processes, start=1):
                current = number == len(self.session.processes)
                invariants.check_turn_pairs(record.entries, active if current else set())

    @invariant()
    def thread_statuses_move_along_legal_edges(self) -> None:
        if self.session is not None:
            for record in self.session.processes:
                invariants.check_status_edges(record.entries)

    @invariant()
    def the_server_is_still_running(self) -> None:
        if self.session is not None and self.session.processes:
            record = self.session.processes[-1]
            assert record.closed or record.client.returncode is None, (
                f"the server exited on its own with code {record.client.returncode}\n"
                f"{record.client.stderr_tail()}"
            )


def make_machine(config: MachineConfig) -> type[LifecycleMachine]:
    """The lifecycle machine for one target, its parameters drawn from that schema."""
    attributes = {"config": config, "draws": LifecycleDraws.of(config.backend.schema_dir)}
    # Named as its base, so hypothesis prints `state = LifecycleMachine()`.
    machine = type("LifecycleMachine", (LifecycleMachine,), attributes)
    return cast("type[LifecycleMachine]", machine)
