"""A scenario's steps, read without running it: the scenario runs on a recorder standing in
for ScenarioRun. The registry's readings are checked against the step labels it records
before any run (tests/probes/test_registry.py), and bench/probes.py replays its steps as
the floor of the probe suite.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from codex_probe.probes.runner.scenarios import SCENARIOS
from codex_probe.probes.runner.steps import UNLOAD_DEADLINE_S, ScenarioRun
from codex_probe.rig.replies import Reply


@dataclass
class Step:
    kind: str  # the ScenarioRun method: restart, start, turn, compact, fork, resume, ...
    thread: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    label: str = ""  # the step's label, as the registry's readings name it


HOLD_ENDED_BY_INTERRUPT = 10.0


class StepRecorder:
    """Stands in for ScenarioRun: records a scenario's steps, runs nothing."""

    def __init__(self) -> None:
        self.steps = [Step("restart")]  # run_scenario starts the first process itself
        self.threads: dict[str, str] = {}
        self.scripted_wait = 0.0  # seconds the scenario waits on purpose, at most
        self.home = SimpleNamespace(workdir=Path("."))
        self.rpc = SimpleNamespace(notify=self._no_message)

    async def _no_message(self, *args: Any) -> None:
        pass  # a notification the scenario sends itself (handshake): nothing to replay

    async def restart(self, *, initialize: bool = True) -> None:
        self.steps.append(Step("restart"))

    async def start(self, label: str, **fields: Any) -> str:
        self.threads[label] = f"thread-{label}"
        self.steps.append(Step("start", label, fields, label))
        return self.threads[label]

    async def turn(
        self,
        thread: str,
        text: str,
        label: str,
        *,
        reply: Reply | None = None,
        replies: tuple[Reply, ...] = (),
        settings: Mapping[str, Any] | None = None,
        **_: Any,
    ) -> None:
        # The model's work is replayed too: the replies the turn queues, its settings.
        queued = ((reply,) if reply is not None else ()) + replies
        params = {"text": text, "replies": queued, "settings": dict(settings or {})}
        self.steps.append(Step("turn", thread, params, label))

    async def begin_turn(self, thread: str, text: str, label: str, reply: Reply) -> str:
        # Replayed as a plain turn; a held-back answer is a scripted wait unless the
        # scenario releases it (until_released) or an interrupt ends it.
        waited = not reply.until_released and reply.delay_s < HOLD_ENDED_BY_INTERRUPT
        self.scripted_wait += reply.delay_s if waited else 0.0
        self.steps.append(Step("turn", thread, {"text": text}, label))
        return f"turn-{label}"

    async def finish_turn(self, thread: str, label: str) -> None:
        # The turn was replayed from begin_turn; waiting for its end is a step of its own.
        self.steps.append(Step("finish_turn", thread, label=label))

    async def compact(self, thread: str, label: str, **_: Any) -> None:
        self.steps.append(Step("compact", thread, label=label))

    async def fork(self, thread: str, label: str, new_thread: str, **fields: Any) -> None:
        self.threads[new_thread] = f"thread-{new_thread}"
        self.steps.append(Step("fork", thread, {"new": new_thread, "fields": fields}, label))

    async def resume(self, thread: str, label: str, **fields: Any) -> None:
        self.steps.append(Step("resume", thread, fields, label))

    async def steer(self, thread: str, text: str, label: str, *, expected_turn_id: str) -> None:
        self.steps.append(Step("steer", thread, label=label))

    async def read(self, thread: str, label: str) -> None:
        self.steps.append(Step("read", thread, label=label))

    async def attempt(
        self,
        method: str,
        params: dict[str, Any],
        label: str,
        *,
        deadline: float | None = None,
        announced: bool = False,  # waits for an event codex sends at once: no scripted wait
    ) -> None:
        self.scripted_wait += deadline or 0.0  # a release that stays silent costs all of it
        self.steps.append(Step("attempt", params={"method": method}, label=label))

    async def unsubscribe(
        self, thread: str, label: str, *, settle: float = UNLOAD_DEADLINE_S
    ) -> None:
        self.scripted_wait += settle  # 0.171 keeps the thread loaded: the whole settle
        self.steps.append(Step("unsubscribe", thread, label=label))


def dry_run(name: str) -> StepRecorder:
    """The steps of scenario `name`, read by running it on a recorder: nothing starts."""
    recorder = StepRecorder()

    async def record() -> None:
        await SCENARIOS[name](cast(ScenarioRun, recorder))

    asyncio.run(record())
    return recorder
