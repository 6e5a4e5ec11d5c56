"""Turns with scripted replies, run as a probe scenario on a backend, and read back.

Each case is a thread of one or more turns, each answered by the replies it queues (a tool-call turn
needs two: the call, then the answer after its output). A case's run is an `Observation`, as the
probes make them, so the fake's fidelity is compared with the same normalization the probes use
(`codex_probe/probes/domain/fidelity.py`). A run is made once per test run (`tests/once.py`) and
shared by the tests that read it, on every xdist worker.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from codex_probe.probes.domain.fidelity import fidelity_of, normalize
from codex_probe.probes.domain.observation import Observation, ScenarioOutcome
from codex_probe.probes.domain.reading import marker
from codex_probe.probes.runner.steps import ScenarioRun, run_scenario
from codex_probe.rig.backends import make_backend
from codex_probe.rig.replies import (
    End,
    FunctionCall,
    Hold,
    Message,
    Reasoning,
    Reply,
    exec_command,
)
from tests.once import computed_once

REAL_RELEASES = ("0.120.0", "0.150.0", "0.171.0")
# The releases with a checked-in profile: the fake imitates them.
PROFILED = ("0.120.0", "0.171.0")
TOOL_OUTPUT = marker("TOOL-OUTPUT")
ESCALATED = {"sandbox_permissions": "require_escalated", "justification": "CODEX-PROBE-WHY"}


@dataclass(frozen=True)
class TurnCase:
    """A thread of turns: the replies queued for each, the thread/start params, and the
    session's answers to what codex asks."""

    turns: tuple[tuple[Reply, ...], ...]
    thread: dict[str, Any] = field(default_factory=dict)
    answers: dict[str, Any] = field(default_factory=dict)
    # Release the held answers when this notification (method, item type) arrives.
    release_on: tuple[str, str] | None = None
    # After the last turn, wait for this notification (method, item type).
    wait_after: tuple[str, str] | None = None
    # Whether the fake's fidelity is compared on it: not where the real order varies.
    compared: bool = True


CASES: dict[str, TurnCase] = {
    "command": TurnCase(((Reply(items=(exec_command(f"echo {TOOL_OUTPUT}"),)), Reply()),)),
    "command-fails": TurnCase(
        ((Reply(items=(exec_command(f"echo {TOOL_OUTPUT}; exit 3"),)), Reply()),)
    ),
    "command-waits": TurnCase(
        # Still running at codex's first read even under load (`sleep 1` had ended by then
        # at load 20-40 on 0.120.0 and 0.150.0), and within the call's own yield: one read.
        (
            (
                Reply(items=(exec_command(f"sleep 3; echo {TOOL_OUTPUT}", yield_time_ms=30000),)),
                Reply(),
            ),
        ),
        compared=False,  # 0.120.0 loses its item/completed now and then (bench/turn_races.py)
    ),
    "command-writes": TurnCase(
        ((Reply(items=(exec_command("touch CODEX-PROBE-FILE; echo rc=$?"),)), Reply()),)
    ),
    "reasoning": TurnCase(
        (
            (
                Reply(
                    items=(
                        Reasoning(("CODEX-PROBE-SUMMARY",), ("CODEX-PROBE-RAW",), "ENCRYPTED"),
                        Message("after reasoning"),
                    )
                ),
            ),
            (Reply(),),
        )
    ),
    "messages": TurnCase(
        ((Reply(items=(Message("one"), Message("two", deltas=2), Message("three"))),),)
    ),
    "failed": TurnCase(
        ((Reply(items=(Reasoning(), Message("partial")), end=End.FAILED),), (Reply(),))
    ),
    "cut": TurnCase(((Reply(items=(Message("partial"),), end=End.CUT),), (Reply(),))),
    "dropped": TurnCase(((Reply(items=(Message("partial"),), end=End.DROPPED),), (Reply(),))),
    "cut-call": TurnCase(
        ((Reply(items=(exec_command(f"echo {TOOL_OUTPUT}"),), end=End.CUT),), (Reply(),))
    ),
    "unknown-tool": TurnCase(
        ((Reply(items=(FunctionCall("codex_probe_no_such_tool", "{}"),)), Reply()),)
    ),
    "bad-arguments": TurnCase(
        ((Reply(items=(FunctionCall("exec_command", "not json"),)), Reply()),)
    ),
    "declined": TurnCase(
        ((Reply(items=(exec_command("touch CODEX-PROBE-FILE", **ESCALATED),)), Reply()),),
        thread={"approvalPolicy": "on-request"},
    ),
    "accepted": TurnCase(
        ((Reply(items=(exec_command("touch CODEX-PROBE-FILE", **ESCALATED),)), Reply()),),
        thread={"approvalPolicy": "on-request"},
        answers={"item/commandExecution/requestApproval": {"decision": "accept"}},
    ),
    "escalated-echo": TurnCase(
        ((Reply(items=(exec_command(f"echo {TOOL_OUTPUT}", **ESCALATED),)), Reply()),),
        thread={"approvalPolicy": "on-request"},
    ),
    "untrusted": TurnCase(
        ((Reply(items=(exec_command("touch CODEX-PROBE-FILE"),)), Reply()),),
        thread={"approvalPolicy": "untrusted"},
    ),
    "slow-command": TurnCase(
        (
            (
                # Codex answers the call after yield_time_ms with what came so far: 2 s for
                # the shell to print `early` (at load 15 it took more than 300 ms).
                Reply(items=(exec_command("echo early; sleep 4; echo late", yield_time_ms=2000),)),
                Reply(),
            ),
        ),
        wait_after=("item/completed", "commandExecution"),
        compared=False,  # the fake's own tests check it: its late item races the scenario end
    ),
    "two-commands": TurnCase(
        ((Reply(items=(exec_command("echo one"), exec_command("echo two"))), Reply()),),
        compared=False,  # codex runs them at once: their items come in either order
    ),
    "held": TurnCase(
        ((Reply(items=(Reasoning(), Hold(deadline_s=30.0), Message("released"))),),),
        release_on=("item/completed", "reasoning"),
    ),
}


@dataclass
class TurnRun:
    """A case's run: its observation, and the files its work folder held at the end."""

    observation: Observation
    files: list[str]

    def notifications(self, method: str) -> list[dict[str, Any]]:
        """The params of every `method` notification, in order."""
        return [
            entry.message.get("params") or {}
            for entry in self.observation.transcript.entries
            if entry.direction == "recv"
            and isinstance(entry.message, dict)
            and entry.message.get("method") == method
            and "id" not in entry.message
        ]

    def server_requests(self, method: str) -> list[dict[str, Any]]:
        """Every `method` request codex sent the client (with its id)."""
        return [
            entry.message
            for entry in self.observation.transcript.entries
            if entry.direction == "recv"
            and isinstance(entry.message, dict)
            and entry.message.get("method") == method
            and "id" in entry.message
        ]

    def answers_sent(self) -> list[dict[str, Any]]:
        """What the client answered codex's requests with."""
        return [
            entry.message
            for entry in self.observation.transcript.entries
            if entry.direction == "send"
            and isinstance(entry.message, dict)
            and "method" not in entry.message
        ]

    def items(self, phase: str, kind: str) -> list[dict[str, Any]]:
        """The items of `kind` in item/`phase` notifications."""
        return [
            params["item"]
            for params in self.notifications(f"item/{phase}")
            if params.get("item", {}).get("type") == kind
        ]

    def completed_turns(self) -> list[dict[str, Any]]:
        return [params["turn"] for params in self.notifications("turn/completed")]

    def statuses(self) -> list[str]:
        return [params["status"]["type"] for params in self.notifications("thread/status/changed")]

    def model_inputs(self) -> list[list[dict[str, Any]]]:
        """The input items of each model request, in order."""
        return [r.input_items() for r in self.observation.requests if r.is_model_request]

    def call_outputs(self) -> dict[str, str]:
        """Every function call output the model requests carried, by call id."""
        found: dict[str, str] = {}
        for request in self.observation.requests:
            if request.is_model_request:
                found.update(request.call_outputs())
        return found


async def run_case(kind: str, version: str, name: str) -> TurnRun:
    """Case `name` as a probe scenario on the `kind` backend of `version`."""
    case = CASES[name]
    files: list[str] = []

    async def turn(run: ScenarioRun, number: int) -> None:
        text = f"{marker(f'USER-{number}')} please answer."
        if case.release_on is None:
            await run.turn("A", text, f"turn-{number}")
            return
        method, item_type = case.release_on
        releasing = asyncio.ensure_future(
            run.session.release_on(
                method, lambda n: (n.params or {}).get("item", {}).get("type") == item_type
            )
        )
        try:
            await run.turn("A", text, f"turn-{number}")
        finally:
            releasing.cancel()
            await asyncio.gather(releasing, return_exceptions=True)

    async def scenario(run: ScenarioRun) -> None:
        for method, answer in case.answers.items():
            run.session.answer(method, answer)
        await run.start("A", **case.thread)
        for number, replies in enumerate(case.turns, start=1):
            run.tap.queue_replies(*replies)
            await turn(run, number)
        if case.wait_after is not None:
            method, item_type = case.wait_after
            await run.session.wait_for(
                method, lambda n: (n.params or {}).get("item", {}).get("type") == item_type
            )
        files.extend(sorted(path.name for path in run.home.workdir.iterdir()))

    observation = await run_scenario(f"turns-{name}", scenario, make_backend(kind, version))
    return TurnRun(observation, files)


def observed(
    tmp_path_factory: pytest.TempPathFactory, kind: str, version: str, name: str
) -> TurnRun:
    """The run of case `name` on `kind` `version`, made once per test run."""
    return computed_once(
        tmp_path_factory,
        f"turns-{kind}-{version}-{name}",
        lambda: asyncio.run(run_case(kind, version, name)),
    )


def fidelity_difference(real: Observation, fake: Observation) -> str:
    """How the fake's normalized observation differs from the real one ('' if alike), by
    the comparison the fake-fidelity findings make (`codex_probe/probes/domain/fidelity.py`, which
    reads notifications through codex_probe/probes/domain/timing.py), less the surface, which those
    findings compare on the probe scenarios."""
    fidelity = fidelity_of(ScenarioOutcome(real), ScenarioOutcome(fake), surface=False)
    assert fidelity is not None
    if fidelity.fake_matches_real:
        return ""
    real_seen, fake_seen = normalize(real), normalize(fake)
    shown = {"diff": fidelity.diff, "real": real_seen, "fake": fake_seen}
    return json.dumps(shown, indent=1)[:8000]
