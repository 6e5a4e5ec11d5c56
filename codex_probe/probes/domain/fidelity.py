"""The fake against the real codex-cli: one scenario's observations, normalized, compared.

The normalized form is what the model saw, as the readings label it (codex_probe/probes/domain/
reading.py: our markers by name, codex's own blocks by their opening words), per step with
its refusal or silence, then the lifecycle notifications in order; ids are masked. On top
of it, the scenario's part of the protocol surface (codex_probe/probes/domain/surface/: every
notification around each answer, the answers' shapes, the refusals, the model requests'
keys, tools and events, the handshake) must be the same. Equal forms and an equal surface
are a fidelity that holds; otherwise DeepDiff says where the forms differ, and
`diff["surface"]` lists each surface key that differs, by aspect.
"""

from __future__ import annotations

import json
from typing import Any

from deepdiff import DeepDiff

from codex_probe.probes.domain.findings import Fidelity
from codex_probe.probes.domain.observation import Observation, ScenarioOutcome
from codex_probe.probes.domain.reading import normalized_request
from codex_probe.probes.domain.stability import mask
from codex_probe.probes.domain.surface.diff import diff_surfaces
from codex_probe.probes.domain.surface.release import surface_of
from codex_probe.probes.domain.timing import settled

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
    return settled(sequence)


def fidelity_of(
    real: ScenarioOutcome, fake: ScenarioOutcome, *, surface: bool = True
) -> Fidelity | None:
    """The fake-vs-real diff of a scenario's normalized observations and (unless asked not
    to) of its part of the surface (None: not comparable)."""
    if real.observation is None or fake.observation is None:
        return None
    real_seen, fake_seen = normalize(real.observation), normalize(fake.observation)
    found: dict[str, Any] = {}
    # Equal as canonical JSON (types, order of lists and all) is no diff: DeepDiff, about
    # 30 ms a scenario, runs only to say where they differ.
    if _canonical(real_seen) != _canonical(fake_seen):
        diff = DeepDiff(real_seen, fake_seen, verbose_level=2)
        found = json.loads(diff.to_json()) if diff else {}
    if surface and (differences := surface_differences(real.observation, fake.observation)):
        found["surface"] = differences
    return Fidelity(not found, found)


def surface_differences(real: Observation, fake: Observation) -> list[dict[str, Any]]:
    """Each key of the scenario's surface whose value differs between real and fake (no
    rule: a fake that differs from codex breaks no client of codex)."""
    name = real.scenario
    real_surface = surface_of(real.version, {name: real.to_record()}, None)
    fake_surface = surface_of(fake.version, {name: fake.to_record()}, None)
    kept = ("aspect", "key", "before", "after", "driver_relevant")
    return [
        {field: change.to_json()[field] for field in kept}
        for change in diff_surfaces(real_surface, fake_surface)
    ]


def surface_aspects(diff: Any) -> dict[str, list[str]]:
    """The aspects of a fidelity diff's surface differences, each with its keys."""
    found: dict[str, list[str]] = {}
    changes = diff.get("surface") if isinstance(diff, dict) else None
    for change in changes or []:
        found.setdefault(str(change["aspect"]), []).append(str(change["key"]))
    return found


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)
