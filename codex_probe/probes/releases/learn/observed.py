"""The observations a profile is learned from, read in the terms the profile speaks.

A learner asks for "the model request of step turn-1 of scenario start" and gets a
`ModelRequest`: where each marker is, which codex block each part is, in the normalized
labels the fidelity comparison uses. What it concludes it returns as `Inferred` (value +
evidence naming scenario and step); what the profile cannot express it raises as a `Gap`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from codex_probe.probes.domain.observation import Observation
from codex_probe.probes.domain.reading import (
    Place,
    View,
    label_text,
    locate,
    normalized_request,
)

T = TypeVar("T")


@dataclass(frozen=True)
class Gap:
    """An observation the profile language cannot express (or could not be made)."""

    field: str  # the profile field, e.g. "behaviour.base_placement"
    scenario: str
    step: str
    observed: str  # what the real codex did
    missing: str  # the knob the profile lacks

    def describe(self) -> str:
        return (
            f"{self.field}: {self.scenario} {self.step}: {self.observed}; "
            f"the profile cannot express this: {self.missing}"
        )

    def to_json(self) -> dict[str, str]:
        return {
            "field": self.field,
            "scenario": self.scenario,
            "step": self.step,
            "observed": self.observed,
            "missing": self.missing,
        }


class Inexpressible(Exception):
    def __init__(self, gap: Gap) -> None:
        self.gap = gap
        super().__init__(gap.describe())


@dataclass(frozen=True)
class Inferred(Generic[T]):
    value: T
    evidence: str


@dataclass(frozen=True)
class ModelRequest:
    """One captured model request, with the labels the fidelity comparison sees."""

    scenario: str
    step: str
    index: int  # the wiretap's request index
    path: str
    body: dict[str, Any]

    @property
    def normalized(self) -> dict[str, Any]:
        return normalized_request(self.body, self.path)

    @property
    def instructions(self) -> str | None:
        value = self.body.get("instructions")
        return None if value is None else str(value)

    @property
    def items(self) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = self.body.get("input") or []
        return items

    def locate(self, marker_name: str) -> list[Place]:
        return locate(self.body, marker_name)

    def labels(self, index: int) -> list[str]:
        """The labels of the parts of input[index] (empty for a non-message item)."""
        item = self.items[index]
        return [
            label_text(str(part.get("text", "")), item.get("role"))
            for part in item.get("content") or []
        ]

    def part_text(self, index: int, part: int) -> str:
        return str(self.items[index]["content"][part].get("text", ""))

    def find_label(self, label: str) -> tuple[int, int] | None:
        """The first (item, part) whose label starts with `label`, if any."""
        for index in range(len(self.items)):
            for part, found in enumerate(self.labels(index)):
                if found.startswith(label):
                    return index, part
        return None

    def describe(self) -> str:
        """The request as a short line of labels, for evidence."""
        normalized = self.normalized
        items = "; ".join(
            f"[{i}] {item.get('role', item.get('type'))}: {', '.join(item.get('parts', []))}"
            for i, item in enumerate(normalized["input"])
        )
        return f"instructions={normalized['instructions']}; input {items}"


class Observed:
    """The real observations of one release, by scenario name, each read through the one
    view of a recorded run (codex_probe/probes/domain/reading.py)."""

    def __init__(self, observations: Mapping[str, Observation]) -> None:
        self.views = {name: View(obs.to_record()) for name, obs in observations.items()}

    def observation(self, scenario: str, field: str) -> View:
        found = self.views.get(scenario)
        if found is None:
            raise Inexpressible(
                Gap(field, scenario, "-", "the scenario gave no observation", "a measurement")
            )
        return found

    def step(self, scenario: str, label: str, field: str) -> dict[str, Any]:
        view = self.observation(scenario, field)
        if label not in view.by_label:
            raise Inexpressible(
                Gap(field, scenario, label, "the step did not run", "a measurement")
            )
        return view.by_label[label]

    def requests(self, scenario: str, label: str, field: str) -> list[ModelRequest]:
        view = self.observation(scenario, field)
        self.step(scenario, label, field)
        return [
            ModelRequest(scenario, label, int(r["index"]), str(r.get("path", "")), r["body"])
            for r in view.requests_of(label)
            if isinstance(r.get("body"), dict)
        ]

    def request(self, scenario: str, label: str, field: str, index: int = -1) -> ModelRequest:
        found = self.requests(scenario, label, field)
        if not found:
            raise Inexpressible(
                Gap(field, scenario, label, "the step made no model request", "a measurement")
            )
        return found[index]

    def error(self, scenario: str, label: str, field: str) -> dict[str, Any]:
        step = self.step(scenario, label, field)
        if step["error"] is None:
            raise Inexpressible(
                Gap(
                    field,
                    scenario,
                    label,
                    f"the request was answered, not refused: {step['result']!r}"[:300],
                    "a profile value for a request codex accepts",
                )
            )
        error: dict[str, Any] = step["error"]
        return error

    def answered_during(self, scenario: str, label: str, field: str) -> str | None:
        """The step during which the request of step `label` got its answer at last (for a
        request left unanswered within its step), or None if it never did."""
        view = self.observation(scenario, field)
        first, end = self.step(scenario, label, field).get("transcript_span") or (0, 0)
        sent = [m for d, m in view.transcript[first:end] if d == "send"]
        if not sent or not isinstance(sent[0], dict):
            return None
        for index in range(end, len(view.transcript)):
            direction, message = view.transcript[index]
            if not isinstance(message, dict):
                continue
            if direction == "send" and message.get("method") == "initialize":
                return None  # a new process: request ids start again
            if (
                direction == "recv"
                and "method" not in message
                and message.get("id") == sent[0].get("id")
            ):
                during = (
                    s["label"]
                    for s in view.steps
                    if s["transcript_span"][0] <= index < s["transcript_span"][1]
                )
                return next(during, "between steps")
        return None

    def turn_ids_started(self, scenario: str, field: str) -> list[str]:
        """The id of every turn the scenario saw a turn/started for, in order."""
        return [
            str(message["params"]["turn"]["id"])
            for message in self.observation(scenario, field).received
            if message.get("method") == "turn/started"
        ]

    def statuses_from(self, scenario: str, label: str, field: str) -> list[str]:
        """The thread statuses notified from step `label` until the next step began, a
        status repeated back to back once (as the observation's normalization counts it)."""
        view = self.observation(scenario, field)
        start = (self.step(scenario, label, field).get("transcript_span") or (0, 0))[0]
        later = [s["transcript_span"][0] for s in view.steps if s["transcript_span"][0] > 0]
        end = min((begin for begin in later if begin > start), default=None)
        statuses = [
            str(message["params"]["status"]["type"])
            for direction, message in view.transcript[start:end]
            if direction == "recv"
            and isinstance(message, dict)
            and message.get("method") == "thread/status/changed"
        ]
        return [s for i, s in enumerate(statuses) if i == 0 or statuses[i - 1] != s]

    def notifications(self, scenario: str, field: str) -> list[str]:
        """The methods of every notification the scenario received, in order."""
        return [
            str(message.get("method"))
            for message in self.observation(scenario, field).received
            if "method" in message and "id" not in message
        ]
