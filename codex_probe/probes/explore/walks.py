"""Seeded random walks through the thread states: a stateful model of its own, in the spirit
of Hypothesis's RuleBasedStateMachine, whose every sequence replays from its seed.

A walk is a list of steps drawn by `random.Random(seed)` from a model of the threads it made
(loaded or not, archived, with a turn held, with turns): start a thread, run a turn, hold
one, let it go, compact, fork, archive, unarchive, unsubscribe, restart the app-server,
resume, roll back, and call a thread method of the plan (its minimal or full call) on any
thread, whatever its state. The steps depend on the seed and the release's plan only, never
on what codex answered, so `codex-probe explore --seed S --walks 1 --no-sweep` runs the same
sequence again.

A walk runs on a lane of its own. A step surprises it when the app-server exits, a request
goes unanswered past its deadline, or an answer, refusal, notification or server request
breaks the release's schema; the walk stops there and its steps so far are the surprise's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from codex_probe.harness.jsonrpc.errors import (
    NotificationTimeout,
    RequestTimeout,
    ServerError,
    TransportError,
)
from codex_probe.probes.explore.fixtures import UNKNOWN_ID, substitute
from codex_probe.probes.explore.lane import Lane
from codex_probe.probes.explore.plan import FULL, MINIMAL, Cell, Plan
from codex_probe.probes.explore.record import Surprise
from codex_probe.probes.explore.states import StateUnreachable, Subject, ThreadLab

DEFAULT_STEPS = 12
# Lifecycle steps, and how often each is drawn against a call of the plan.
LIFECYCLE = (
    "start",
    "turn",
    "hold",
    "release",
    "compact",
    "fork",
    "archive",
    "unarchive",
    "unsubscribe",
    "restart",
    "resume",
    "roll back",
)
CALL_WEIGHT = 0.4


@dataclass(frozen=True)
class Step:
    action: str  # a LIFECYCLE name, or "call"
    thread: str = ""  # the label of the thread it is about (T0, T1...)
    cell: Cell | None = None
    made: str = ""  # the label of a thread the step makes (start, fork)

    def __str__(self) -> str:
        if self.action == "call" and self.cell is not None:
            return f"{self.cell.method} {self.cell.variant} on {self.thread}"
        if self.made:
            return f"{self.action} {self.thread} -> {self.made}".replace("  ", " ")
        return f"{self.action} {self.thread}".strip()


@dataclass
class _Model:
    """What the walk believes of its threads (from its own steps, never from answers)."""

    threads: list[str] = field(default_factory=list)
    held: set[str] = field(default_factory=set)
    archived: set[str] = field(default_factory=set)

    def label(self) -> str:
        made = f"T{len(self.threads)}"
        self.threads.append(made)
        return made


def draw(
    seed: int, plan: Plan, steps: int = DEFAULT_STEPS, variants: tuple[str, ...] = (MINIMAL, FULL)
) -> list[Step]:
    """The steps of the walk of `seed` (see the module), its calls those of the plan's
    `variants` in `idle`."""
    chance = random.Random(seed)
    calls = sorted(
        (cell for cell in plan.cells if cell.state == "idle" and cell.variant in variants),
        key=lambda cell: cell.key,
    )
    model = _Model()
    drawn = [Step("start", made=model.label())]
    while len(drawn) < steps:
        thread = chance.choice(model.threads)
        if calls and chance.random() < CALL_WEIGHT:
            drawn.append(Step("call", thread, chance.choice(calls)))
            continue
        action = chance.choice(LIFECYCLE)
        if action in ("start", "fork"):
            drawn.append(Step(action, "" if action == "start" else thread, made=model.label()))
            continue
        if action == "hold":
            if model.held:
                continue  # one turn is held at a time (the wiretap lets them all go at once)
            model.held.add(thread)
        elif action == "release":
            if thread not in model.held:
                continue
            model.held.discard(thread)
        elif action == "restart":
            if model.held:
                continue
            thread = ""
        drawn.append(Step(action, thread))
    return drawn


@dataclass
class WalkResult:
    seed: int
    steps: list[Step]
    done: int = 0
    surprise: Surprise | None = None
    answers: list[str] = field(default_factory=list)
    # Each step done, as it came back: a call's `{"method", "result" | "error"}`, or what
    # a lifecycle step said ("forked", "refused: ..."): what holdout compares.
    outcomes: list[Any] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "steps": [str(step) for step in self.steps],
            "done": self.done,
            "answers": self.answers,
            "outcomes": self.outcomes,
            "surprise": None if self.surprise is None else self.surprise.to_json(),
        }


async def walk(
    lane: Lane, lab: ThreadLab, seed: int, steps: list[Step], version: str
) -> WalkResult:
    """Run `steps` on `lane` (open) with `lab` on its session."""
    result = WalkResult(seed, steps)
    subjects: dict[str, Subject] = {}
    reproduce = f"codex-probe explore --codex {version} --seed {seed} --walks 1 --no-sweep"
    for number, step in enumerate(steps):
        try:
            came = await _step(lane, lab, step, subjects)
        except (ServerError, NotificationTimeout) as refused:
            came = f"refused: {str(refused).splitlines()[0]}"
        except StateUnreachable as cannot:  # e.g. a roll back on a release without one
            came = f"cannot: {cannot}"
        except (RequestTimeout, TransportError) as stopped:
            what = f"step {number + 1} ({step}): {str(stopped).splitlines()[0]}"
            result.surprise = Surprise(what, f"walk {seed}", _told(steps, number), reproduce)
            return result
        said = came if isinstance(came, str) else _said(came)
        result.outcomes.append(came)
        result.answers.append(said)
        result.done = number + 1
        broken = [v for v in lane.violations_since_walk() if v]
        if broken:
            what = f"step {number + 1} ({step}) breaks the schema: {broken[0]}"
            result.surprise = Surprise(what, f"walk {seed}", _told(steps, number), reproduce)
            return result
    return result


def _told(steps: list[Step], upto: int) -> tuple[str, ...]:
    return tuple(f"{number + 1}. {step}" for number, step in enumerate(steps[: upto + 1]))


async def _step(
    lane: Lane, lab: ThreadLab, step: Step, subjects: dict[str, Subject]
) -> str | dict[str, Any]:
    """What the step said, or a call's answer (with its method)."""
    session = lab.session
    subject = subjects.get(step.thread)
    if step.action == "start":
        subjects[step.made] = await lab.start()
        return "started"
    if step.action == "restart":
        await session.restart()
        return "restarted"
    if subject is None:
        return "no such thread"
    if step.action == "call" and step.cell is not None:
        values = {"thread": subject.thread, "turn": subject.turn or UNKNOWN_ID}
        values.update({k: v for k, v in lane.values(step.cell, subject).items() if k not in values})
        params = substitute(step.cell.params, values)
        return {"method": step.cell.method, **await lane.checked_call(step.cell.method, params)}
    if step.action == "fork":
        subjects[step.made] = await lab.fork(subject)
        return "forked"
    if step.action == "turn":
        await lab.turn(subject)
    elif step.action == "hold":
        await lab.hold(subject)
    elif step.action == "release":
        await lane.let_go(subject)
    elif step.action == "compact":
        await lab.compact(subject)
    elif step.action == "archive":
        await lab.archive(subject)
    elif step.action == "roll back":
        await lab.roll_back(subject)
    else:
        method = {"unarchive": "thread/unarchive", "unsubscribe": "thread/unsubscribe"}.get(
            step.action, "thread/resume"
        )
        return {"method": method, **await lane.checked_call(method, {"threadId": subject.thread})}
    return "done"


def _said(outcome: dict[str, Any]) -> str:
    if "error" in outcome:
        error = outcome["error"] or {}
        return f"refused {error.get('code')}"
    return "answered"
