"""Normalize an observation: what the model saw, as labels a person (and deepdiff) can read.

Ids and times are masked. The labels are the readings' (probes/domain/reading.py): our
marker strings (`CODEX-PROBE-<NAME>`) by name, codex's own blocks by their opening words
rather than byte for byte, since their text changes with every release.
"""

from __future__ import annotations

import re
from typing import Any

from codex_probe.probes.domain.reading import normalized_request
from codex_probe.probes.scenario import Observation

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
            "model_requests": [normalized_request(r.body, r.path) for r in captured],
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
