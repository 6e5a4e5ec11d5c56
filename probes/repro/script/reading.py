"""The finding's values, read from a record (codex-probe's, or a replay's) with the
expressions of finding.json's `reads`, and the preconditions codex-probe proves first."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from codex_probe.probes.repro.script.outcomes import PRECONDITION, Unreadable, dig


class Reading:
    """Reads the expressions of finding.json's `reads` from a record: codex-probe's
    (observation.json) or this run's. Each expression is {operation: argument}."""

    def __init__(self, record: dict[str, Any], vocabulary: dict[str, Any]) -> None:
        self.record_steps: list[dict[str, Any]] = record["steps"]
        self.steps: dict[str, dict[str, Any]] = {}
        for step in self.record_steps:
            self.steps.setdefault(step["label"], step)
        self.requests = {request["index"]: request for request in record["model_requests"]}
        self.received: list[Any] = record["received"]
        self.words = vocabulary
        self.marker = re.compile(vocabulary["marker_pattern"])
        self.operations: dict[str, Callable[[Any], Any]] = {
            "const": lambda value: value,
            "all": lambda parts: all([self.value(part) for part in parts]),
            "any": lambda parts: any([self.value(part) for part in parts]),
            "not": lambda part: not self.value(part),
            "equal": lambda pair: self.value(pair[0]) == self.value(pair[1]),
            "member": lambda pair: self.value(pair[0]) in self.value(pair[1]),
            "seen": lambda at: bool(self.locate(at)),
            "where": lambda at: [describe(place) for place in self.locate(at)],
            "in_role": lambda at: any(place[2] == at["role"] for place in self.locate(at)),
            "role_before": self.role_before,
            "block_seen": self.block_seen,
            "same_layout": self.same_layout,
            "refused": lambda label: self.step(label)["error"] is not None,
            "silent": lambda label: self.step(label)["unanswered_within"] is not None,
            "error": lambda at: (self.step(at["step"])["error"] or {}).get(at["field"]),
            "refusal_reading": self.refusal_reading,
            "answer": lambda at: dig(self.step(at["step"])["result"], at["path"]),
            "turns_started": lambda _: [
                str(dig(m, ["params", "turn", "id"]))
                for m in self.received
                if m.get("method") == "turn/started"
            ],
            "received_with_field": lambda name: any(name in m for m in self.received),
            "error_with_field": lambda name: any(
                isinstance(m.get("error"), dict) and name in m["error"] for m in self.received
            ),
        }

    def value(self, expression: dict[str, Any]) -> Any:
        [(operation, argument)] = expression.items()
        return self.operations[operation](argument)

    def step(self, label: str) -> dict[str, Any]:
        if label not in self.steps:
            raise Unreadable(label, f"the run recorded no step {label!r}")
        return self.steps[label]

    def bodies(self, label: str) -> list[dict[str, Any]]:
        """The model request bodies sent during step `label`."""
        found = [self.requests[i].get("body") for i in self.step(label)["model_requests"]]
        return [body for body in found if isinstance(body, dict)]

    def body(self, label: str) -> dict[str, Any]:
        """The last model request of step `label`: the one that step's values are read in."""
        bodies = self.bodies(label)
        if not bodies:
            raise Unreadable(label, f"step {label!r} made no model request")
        return bodies[-1]

    def request_kind(self, index: int) -> str | None:
        """Whether a model request is a "compaction" or a "turn" (None: it had no JSON body)."""
        request = self.requests[index]
        body = request.get("body")
        if not isinstance(body, dict):
            return None
        if str(request.get("path", "")).endswith("/responses/compact"):
            return "compaction"
        items = body.get("input") or []
        last = items[-1] if items else {}
        if last.get("type") == "compaction_trigger":
            return "compaction"
        texts = [str(part.get("text", "")) for part in last.get("content") or []]
        opening = self.words["compaction_prompt"]
        return "compaction" if any(text.startswith(opening) for text in texts) else "turn"

    def locate(self, at: dict[str, Any]) -> list[tuple[str, int | None, Any, int | None]]:
        """(field, item, role, part) of every place the marker is in the step's request."""
        body, wanted = self.body(at["step"]), self.words["marker_prefix"] + at["marker"]
        found: list[tuple[str, int | None, Any, int | None]] = []
        if wanted in str(body.get("instructions") or ""):
            found.append(("instructions", None, None, None))
        for item_index, item in enumerate(body.get("input") or []):
            for part_index, part in enumerate(item.get("content") or []):
                if isinstance(part, dict) and wanted in str(part.get("text", "")):
                    found.append(("input", item_index, item.get("role"), part_index))
        return found

    def role_before(self, at: dict[str, Any]) -> Any:
        """The role of the input item just before the one holding the marker."""
        places = [place for place in self.locate(at) if place[1] is not None]
        if not places or places[0][1] is None:
            raise Unreadable(at["step"], f"no input item of step {at['step']} holds {at['marker']}")
        return self.body(at["step"])["input"][places[0][1] - 1].get("role")

    def label(self, text: str, role: Any = None) -> str:
        """A text as codex-probe labels it: our markers, or which block of codex's it is."""
        prefix = self.words["marker_prefix"]
        found = [marker[len(prefix) :] for marker in self.marker.findall(text)]
        for opening, kind in self.words["codex_blocks"]:
            if text.startswith(opening):
                return str(kind) + (f"[{'+'.join(found)}]" if found else "")
        if found:
            return "+".join(found)
        return "reply" if role == "assistant" else "text"

    def layout(self, label: str) -> tuple[Any, list[dict[str, Any]]]:
        """The step's request as labels: its instructions field and its input items."""
        body = self.body(label)
        items: list[dict[str, Any]] = []
        for item in body.get("input") or []:
            if item.get("type") == "message":
                parts = [
                    self.label(str(part.get("text", "")), item.get("role"))
                    for part in item.get("content") or []
                ]
                items.append({"role": item.get("role"), "parts": parts})
            else:
                items.append({"type": item.get("type"), "parts": []})
        instructions = body.get("instructions")
        return (None if instructions is None else self.label(str(instructions))), items

    def same_layout(self, at: dict[str, Any]) -> bool:
        """Whether two steps' requests look alike, parts starting with `ignoring` aside."""

        def without(label: str) -> tuple[Any, list[dict[str, Any]]]:
            instructions, items = self.layout(label)
            kept = [
                {**item, "parts": [p for p in item["parts"] if not p.startswith(at["ignoring"])]}
                for item in items
            ]
            return instructions, kept

        first, second = at["steps"]
        return without(first) == without(second)

    def block_seen(self, at: dict[str, Any]) -> bool:
        instructions, items = self.layout(at["step"])
        labels = [str(instructions)] + [part for item in items for part in item["parts"]]
        return any(at["block"] in label for label in labels)

    def refusal_reading(self, at: dict[str, Any]) -> Any:
        """How codex-probe's driver reads the step's refusal (None: not refused, or unknown)."""
        error = self.step(at["step"])["error"]
        if error is None or error.get("code") != self.words["refusal_code"]:
            return None
        rules = self.words["refusal_rules"][at["rules"]]
        message = str(error.get("message"))
        return next((reading for pattern, reading in rules if re.match(pattern, message)), None)


def describe(place: tuple[str, int | None, Any, int | None]) -> str:
    field, item, role, part = place
    if field == "instructions":
        return "top-level instructions field"
    return f"input[{item}] role={role} part {part}"


def unmet_preconditions(reading: Reading) -> list[dict[str, Any]]:
    """What the finding rests on and did not happen, as codex-probe proves it: every turn
    completed, every compaction asked the model for one, every restart is a new process."""
    unmet: list[dict[str, Any]] = []
    for step in reading.record_steps:
        label, result = step["label"], step["result"] if isinstance(step["result"], dict) else {}
        problem = None
        if step["step"] == "restart" and result.get("previous") is not None:
            previous = result["previous"]
            if previous.get("pid") == result.get("pid"):
                problem = f"the same process (pid {result.get('pid')}) answered after it"
            elif previous.get("returncode") is None:
                problem = f"the old process (pid {previous.get('pid')}) did not exit"
        elif step["step"] in ("turn", "compact"):
            status = dig(result, ["turn/completed", "turn", "status"])
            if status != "completed":
                problem = f"its turn ended {status or 'without turn/completed'}"
        if problem is not None:
            unmet.append({"step": label, "kind": PRECONDITION, "detail": problem})
        if step["step"] == "compact":
            kinds = [reading.request_kind(i) for i in step["model_requests"]]
            if "compaction" not in kinds:
                count = len([kind for kind in kinds if kind is not None])
                problem = f"codex asked the model for no compaction ({count} request(s))"
                unmet.append({"step": label, "kind": PRECONDITION, "detail": problem})
    return unmet
