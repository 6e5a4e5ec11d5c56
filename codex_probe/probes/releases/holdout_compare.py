"""Two runs of the same out-of-sample work compared step by step, masked as the surface
masks them (probes/domain/surface/exploration.py): an answer is its shape with its
enumerated values kept, a refusal its code and masked message, the notifications a call
caused their methods with their enumerated values. A step differs when its masked outcomes
differ.

A step of the sweep is a cell (`METHOD STATE VARIANT`); a step of a walk is the walk's
seed and step number, its outcome the step's answer (a call's, or what a lifecycle step
said), without notifications: a walk reads none per step. A step one run did not reach (the
walk stopped before it) is `not run` there.

With a control (the real release run a second time), a step whose two real outcomes differ
is *unstable*: it is counted apart, never among the differing ones, and never hidden.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from codex_probe.probes.domain.surface.enumerated import MessageSchemas, enumerated_shape
from codex_probe.probes.domain.surface.exploration import cell_value
from codex_probe.probes.domain.surface.shape import mask_text

SWEEP = "sweep"
# A refused lifecycle step names the client's own request id (`turn/start (id 9) failed`):
# the client's counter, not the release's behaviour.
REQUEST_ID = re.compile(r" \(id \d+\)")
# A wait that ran out names how long it waited (`within 10.09s`): the machine's timing.
ELAPSED = re.compile(r"\b\d+(\.\d+)?s\b")
UNKNOWN_METHOD = "unknown variant"


@dataclass(frozen=True)
class Step:
    """One step of the out-of-sample work and what each run made of it, masked."""

    key: str  # the cell's key, or `walk SEED step N`
    method: str
    state: str  # the cell's state; for a walk, the steps that led to it
    params: Any
    real: Any
    other: Any
    control: Any = None  # the second real run's, where there is one
    walk: int | None = None  # the walk's seed
    sequence: tuple[str, ...] = ()  # a walk's steps up to this one

    @property
    def unstable(self) -> bool:
        return self.control is not None and self.control != self.real

    @property
    def differs(self) -> bool:
        """The other run's outcome is not the real one's, on a step the real repeats."""
        return not self.unstable and self.other != self.real

    @property
    def how(self) -> str:
        """How the other run differs (what the README's table counts), or "same"."""
        if self.real == self.other:
            return "same"
        real, other = self.real or {}, self.other or {}
        if "not run" in other or "not run" in real:
            return "not run on one side"
        refused, answered = "refused" in other, "answer" in other
        unknown = f"{UNKNOWN_METHOD} `{self.method}`"
        if refused and unknown in str(other["refused"].get("message")):
            return "the fake does not know the method"
        if refused and "answer" in real:
            return "the real answers, the fake refuses"
        if answered and "refused" in real:
            return "the real refuses, the fake answers"
        if refused and "refused" in real:
            return "both refuse, in other words"
        if answered and "answer" in real and other["answer"] != real["answer"]:
            return "both answer, with another shape or value"
        if "said" in real or "said" in other:
            return "a lifecycle step went otherwise"
        return "the notifications differ"

    def differences(self) -> list[tuple[str, Any, Any]]:
        """Where the two outcomes differ: (where, the real one's, the other's), an
        answer's shape path by path (`answer approvalPolicy`), anything else whole."""
        found: list[tuple[str, Any, Any]] = []
        real = self.real if isinstance(self.real, dict) else {"outcome": self.real}
        other = self.other if isinstance(self.other, dict) else {"outcome": self.other}
        for part in sorted(set(real) | set(other)):
            mine, theirs = real.get(part), other.get(part)
            if mine == theirs:
                continue
            if part == "answer" and isinstance(mine, dict) and isinstance(theirs, dict):
                found += [
                    (f"answer {path}", mine.get(path), theirs.get(path))
                    for path in sorted(set(mine) | set(theirs))
                    if mine.get(path) != theirs.get(path)
                ]
            else:
                found.append((part, mine, theirs))
        return found

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "key": self.key,
            "method": self.method,
            "state": self.state,
            "params": self.params,
            "real": self.real,
            "other": self.other,
            "differs": self.differs,
            "how": self.how,
            "unstable": self.unstable,
        }
        if self.control is not None:
            found["control"] = self.control
        if self.walk is not None:
            found["walk"] = self.walk
            found["sequence"] = list(self.sequence)
        return found


@dataclass
class Comparison:
    steps: list[Step] = field(default_factory=list)

    @property
    def differing(self) -> list[Step]:
        return [step for step in self.steps if step.differs]

    @property
    def unstable(self) -> list[Step]:
        return [step for step in self.steps if step.unstable]

    @property
    def stable(self) -> int:
        return len(self.steps) - len(self.unstable)

    @property
    def share(self) -> float:
        """The differing steps as a share of the stable ones (0 when there are none)."""
        return len(self.differing) / self.stable if self.stable else 0.0

    def counts(self) -> dict[str, Any]:
        return {
            "steps": len(self.steps),
            "sweep": sum(1 for step in self.steps if step.walk is None),
            "walk steps": sum(1 for step in self.steps if step.walk is not None),
            "stable": self.stable,
            "unstable": len(self.unstable),
            "unstable and differing": sum(1 for step in self.unstable if step.other != step.real),
            "differing": len(self.differing),
            "differing %": round(100 * self.share, 2),
            "how": dict(Counter(step.how for step in self.differing).most_common()),
        }


def compare(
    real: dict[str, Any],
    other: dict[str, Any],
    schemas: MessageSchemas,
    control: dict[str, Any] | None = None,
) -> Comparison:
    """The steps of two exploration records of the same work (record.py's JSON), with the
    control's outcome beside the real one's where a control ran."""
    compared = Comparison()
    compared.steps += list(_sweep(real, other, control, schemas))
    compared.steps += list(_walks(real, other, control, schemas))
    return compared


def _sweep(
    real: dict[str, Any],
    other: dict[str, Any],
    control: dict[str, Any] | None,
    schemas: MessageSchemas,
) -> Iterator[Step]:
    others = _cells(other)
    controls = _cells(control) if control is not None else {}
    for key, cell in _cells(real).items():
        mirrored = others.get(key)
        checked = controls.get(key)
        yield Step(
            key,
            str(cell["method"]),
            str(cell["state"]),
            cell.get("params"),
            cell_value(cell, schemas),
            cell_value(mirrored, schemas) if mirrored else {"not run": "no such cell"},
            None
            if control is None
            else (cell_value(checked, schemas) if checked else {"not run": "no such cell"}),
        )


def _cells(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        f"{cell['method']} {cell['state']} {cell['variant']}": cell
        for cell in record.get("cells") or []
    }


def _walks(
    real: dict[str, Any],
    other: dict[str, Any],
    control: dict[str, Any] | None,
    schemas: MessageSchemas,
) -> Iterator[Step]:
    others = {walk["seed"]: walk for walk in other.get("walks") or []}
    controls = {walk["seed"]: walk for walk in (control or {}).get("walks") or []}
    for walk in real.get("walks") or []:
        seed = walk["seed"]
        steps = list(walk.get("steps") or [])
        for number, told in enumerate(steps):
            yield Step(
                f"walk {seed} step {number + 1}",
                _step_method(told, walk, others.get(seed), number=number),
                "walk",
                told,
                walk_outcome(walk, number, schemas),
                walk_outcome(others.get(seed), number, schemas),
                None if control is None else walk_outcome(controls.get(seed), number, schemas),
                walk=seed,
                sequence=tuple(f"{n + 1}. {s}" for n, s in enumerate(steps[: number + 1])),
            )


def _step_method(told: str, *walks: dict[str, Any] | None, number: int = 0) -> str:
    """A walk step's method: the one its call named (`unarchive T0` calls
    thread/unarchive), else its action (`fork`)."""
    for walk in walks:
        outcomes = (walk or {}).get("outcomes") or []
        if number < len(outcomes) and isinstance(outcomes[number], dict):
            return str(outcomes[number].get("method"))
    return told.split(" T", 1)[0].split(" ", 1)[0].strip() or told


def walk_outcome(walk: dict[str, Any] | None, number: int, schemas: MessageSchemas) -> Any:
    """The masked outcome of a walk's step `number` (0-based)."""
    if walk is None:
        return {"not run": "the walk did not run"}
    outcomes = walk.get("outcomes") or []
    if number >= len(outcomes):
        surprise = walk.get("surprise") or {}
        what = surprise.get("what") if isinstance(surprise, dict) else None
        return {"not run": mask_text(f"the walk stopped: {what}" if what else "the walk stopped")}
    came = outcomes[number]
    if isinstance(came, str):
        return {"said": ELAPSED.sub("<s>", REQUEST_ID.sub("", mask_text(came)))}
    method = str(came.get("method"))
    if "error" in came:
        error = came.get("error") or {}
        return {
            "refused": {
                "code": error.get("code"),
                "message": mask_text(str(error.get("message"))),
            }
        }
    return {"answer": enumerated_shape(came.get("result"), schemas.response(method))}
