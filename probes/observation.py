"""Normalize an observation: what the model saw, as labels a person (and deepdiff) can read.

Ids and times are masked. Our marker strings (`CODEX-PROBE-<NAME>`) are located by
field, item, role and part. codex's own blocks are classified by their opening words
rather than compared byte for byte, since their text changes with every release.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from codex_probe.probes.scenario import Observation

MARKER = re.compile(r"CODEX-PROBE-[A-Z0-9][A-Z0-9-]*[A-Z0-9]")
# How codex's prompt for a local compaction begins (its last input item).
COMPACTION_PROMPT_OPENING = "You are performing a CONTEXT CHECKPOINT COMPACTION"
# Opening words of the blocks codex writes itself, as measured (docs/observations/).
CODEX_BLOCKS = (
    ("You are a coding agent running in the Codex CLI", "codex:default_prompt"),
    ("<environment_context>", "codex:environment_context"),
    ("<permissions instructions>", "codex:permissions"),
    ("<skills_instructions>", "codex:skills"),
    ("<tools>", "codex:tools"),
    (COMPACTION_PROMPT_OPENING, "codex:compaction_prompt"),
    ("Another language model started to solve this problem", "codex:compaction_summary"),
)
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# Notifications that carry the lifecycle the design depends on; the rest (warnings,
# rate limits, deprecation notices) are noise for the comparison of fake and real.
KEY_NOTIFICATIONS = (
    "thread/started",
    "thread/status/changed",
    "thread/closed",
    "thread/compacted",
    "turn/started",
    "turn/completed",
    "item/started",
    "item/completed",
)


def marker(name: str) -> str:
    """The marker text for `name` (upper case letters, digits and dashes)."""
    return f"CODEX-PROBE-{name}"


def markers_in(text: str) -> list[str]:
    return [m.removeprefix("CODEX-PROBE-") for m in MARKER.findall(text)]


def label_text(text: str, role: str | None = None) -> str:
    """A short label: the markers a text holds, or the kind of codex block it is."""
    found = markers_in(text)
    for opening, kind in CODEX_BLOCKS:
        if text.startswith(opening):
            return kind + (f"[{'+'.join(found)}]" if found else "")
    if found:
        return "+".join(found)
    return "reply" if role == "assistant" else "text"


def normalize_request(body: dict[str, Any], path: str = "/v1/responses") -> dict[str, Any]:
    items: list[Any] = []
    for item in body.get("input") or []:
        kind = item.get("type")
        if kind == "message":
            parts = [
                label_text(str(part.get("text", "")), item.get("role"))
                for part in item.get("content") or []
            ]
            items.append({"role": item.get("role"), "parts": parts})
        else:
            items.append({"type": kind})
    instructions = body.get("instructions")
    return {
        "path": path.rsplit("/v1", 1)[-1],
        "kind": "compaction" if path.endswith("/responses/compact") else request_kind(body),
        "instructions": None if instructions is None else label_text(str(instructions)),
        "input": items,
        "tools": bool(body.get("tools")),
    }


def request_kind(body: dict[str, Any]) -> str:
    inputs = body.get("input") or []
    last = inputs[-1] if inputs else {}
    if last.get("type") == "compaction_trigger":
        return "compaction"
    texts = [str(p.get("text", "")) for p in last.get("content") or []]
    if any(t.startswith(COMPACTION_PROMPT_OPENING) for t in texts):
        return "compaction"
    return "turn"


@dataclass(frozen=True)
class Location:
    """Where a marker was found in one model request."""

    field: str  # "instructions" or "input"
    item: int | None
    role: str | None
    part: int | None

    def describe(self) -> str:
        if self.field == "instructions":
            return "top-level instructions field"
        return f"input[{self.item}] role={self.role} part {self.part}"


def locate(body: dict[str, Any], name: str) -> list[Location]:
    """Every place the marker `name` appears in a model request body."""
    wanted = marker(name)
    found: list[Location] = []
    if wanted in str(body.get("instructions") or ""):
        found.append(Location("instructions", None, None, None))
    for index, item in enumerate(body.get("input") or []):
        for part_index, part in enumerate(item.get("content") or []):
            if wanted in str(part.get("text", "")):
                found.append(Location("input", index, item.get("role"), part_index))
    return found


def mask(text: str) -> str:
    return UUID.sub("<id>", text)


# Observed values that say where a run happened, not what codex did.
NOT_COMPARED = ("profile",)


def comparable(observed: Any) -> Any:
    """Observed values as two runs are compared: not where a run happened, no ids."""
    if isinstance(observed, dict):
        return {k: comparable(v) for k, v in observed.items() if k not in NOT_COMPARED}
    if isinstance(observed, list):
        return [comparable(v) for v in observed]
    if isinstance(observed, str):
        return mask(observed)
    return observed


def normalize(observation: Observation) -> dict[str, Any]:
    """The comparable form of an observation: per step, its error (or its silence) and
    model requests, then the sequence of lifecycle notifications."""
    by_index = {r.index: r for r in observation.requests}
    steps = []
    for step in observation.steps:
        captured = [by_index[i] for i in step.requests if isinstance(by_index[i].body, dict)]
        normalized: dict[str, Any] = {
            "step": step.name,
            "label": step.label,
            "error": None
            if step.error is None
            else {"code": step.error["code"], "message": mask(step.error["message"])},
            "model_requests": [normalize_request(r.body, r.path) for r in captured],
        }
        if step.unanswered_within is not None:
            # Silence differs from an answer; only steps that may see it say so.
            normalized["unanswered_within_s"] = step.unanswered_within
        steps.append(normalized)
    return {"steps": steps, "notifications": lifecycle_notifications(observation)}


def lifecycle_notifications(observation: Observation) -> list[str]:
    sequence: list[str] = []
    last_status: tuple[Any, str] | None = None
    for entry in observation.transcript.entries:
        message = entry.message
        if entry.direction != "recv" or not isinstance(message, dict):
            continue
        method = message.get("method")
        if method not in KEY_NOTIFICATIONS or "id" in message:
            continue
        params = message.get("params") or {}
        detail = ""
        if method == "thread/status/changed":
            detail = params.get("status", {}).get("type", "")
        elif method in ("item/started", "item/completed"):
            detail = params.get("item", {}).get("type", "")
        elif method == "turn/completed":
            detail = params.get("turn", {}).get("status", "")
        label = f"{method}:{detail}" if detail else str(method)
        # A thread's status repeated back to back says nothing new; 0.171.0 sometimes
        # sends notLoaded twice when a resume races the unload of an unsubscribed thread.
        status = (params.get("threadId"), label) if method == "thread/status/changed" else None
        if status is not None and status == last_status:
            continue
        last_status = status
        sequence.append(label)
    return sequence
