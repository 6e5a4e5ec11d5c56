"""Say which observation a fake on a learned profile still gets wrong, and which field owns it.

The fidelity diff of a scenario names paths such as root['steps'][4]['model_requests'][0];
this reads them back as the step they belong to, and names the profile fields learned from
that scenario. A difference no field is learned from means the profile language has no
knob for it at all.
"""

from __future__ import annotations

import re
from typing import Any

# The scenarios each part of the profile is learned from (codex_probe/probes/releases/learn/*.py
# read them).
FIELDS_BY_SCENARIO: dict[str, tuple[str, ...]] = {
    "start": (
        "behaviour.base_placement",
        "behaviour.developer_context_parts",
        "texts.skills",
        "texts.permissions",
    ),
    "start-empty": (
        "behaviour.empty_base",
        "behaviour.null_or_omitted_base",
        "behaviour.empty_developer",
        "texts.default_prompt",
    ),
    "resume-loaded": ("behaviour.loaded_resume",),
    "resume-cold": ("behaviour.cold_resume_base", "behaviour.cold_resume_developer"),
    "override-persistence": ("behaviour.cold_resume_base", "behaviour.cold_resume_developer"),
    "compaction": (
        "behaviour.compaction",
        "texts.compaction_prompt",
        "texts.summary_prefix",
    ),
    "resume-unsubscribed": ("behaviour.unsubscribe",),
    "errors": (
        "behaviour.steer_while_answering",
        "behaviour.turn_start_while_active",
        "behaviour.interrupt_without_turn",
        "errors.no_rollout",
        "errors.invalid_thread_id",
        "errors.thread_not_found",
        "errors.no_active_turn",
        "errors.steer_without_expected_turn",
        "errors.wrong_active_turn",
        "errors.turns_before_first_turn",
        "errors.no_active_turn_to_interrupt",
    ),
    "handshake": (
        "errors.not_initialized",
        "errors.already_initialized",
        "errors.unknown_method",
        "surface.experimental_fields",
        "surface.experimental_refusal",
        "surface.incidental_notifications",
    ),
    "compaction-remote": ("behaviour.remote_compaction",),
}
STEP_PATH = re.compile(r"root\['steps'\]\[(\d+)\](.*)")
NOTIFICATION_PATH = re.compile(r"root\['notifications'\]")


def explain(scenario: str, real: dict[str, Any], diff: dict[str, Any]) -> list[str]:
    """One line per differing place of a fidelity diff (`real`: the normalized real run),
    and per aspect of the surface that differs."""
    places: dict[str, list[str]] = {}
    for kind, change in diff.items():
        if kind == "surface":
            for surface_change in change:
                place = f"surface {surface_change['aspect']}"
                places.setdefault(place, []).append(str(surface_change["key"]))
            continue
        paths = change.keys() if isinstance(change, dict) else change
        for path in paths:
            places.setdefault(_place(str(path), real), []).append(str(path))
    fields = FIELDS_BY_SCENARIO.get(scenario, ())
    owner = (
        f"fields learned from this scenario: {', '.join(fields)}; none has a value for what "
        "codex did"
        if fields
        else "no profile field is learned from this scenario"
    )
    return [
        f"{scenario} {place}: differs at {len(paths)} place(s), e.g. {paths[0]}; {owner}"
        for place, paths in places.items()
    ]


def _place(path: str, real: dict[str, Any]) -> str:
    if match := STEP_PATH.match(path):
        index = int(match.group(1))
        steps = real.get("steps", [])
        label = steps[index]["label"] if index < len(steps) else f"#{index}"
        what = "model requests" if "model_requests" in match.group(2) else "answer"
        return f"step {label} ({what})"
    if NOTIFICATION_PATH.match(path):
        return "notifications"
    return "observation"
