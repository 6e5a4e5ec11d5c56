"""What a scenario's findings rest on, proven from its observation before any is judged.

A finding that reads "after compaction" means nothing if no compaction happened; one that
reads "after a restart" means nothing if the same process answered. So before a check
runs, the observation must show: every turn step's turn completed, every compaction step
asked the model for a compaction and its turn completed, every restart ended the old
process and started another. Otherwise every finding of the scenario is broken, naming
the event that did not happen.
"""

from __future__ import annotations

from typing import Any

from codex_probe.probes.observation import normalize_request
from codex_probe.probes.scenario import Observation, StepRecord


def unmet_preconditions(observation: Observation) -> list[str]:
    unmet: list[str] = []
    for step in observation.steps:
        if step.name == "restart":
            unmet += _restarted(step)
        elif step.name in ("turn", "compact"):
            unmet += _completed(step)
        if step.name == "compact":
            unmet += _asked_for_compaction(observation, step)
    return unmet


def _completed(step: StepRecord) -> list[str]:
    result: dict[str, Any] = step.result if isinstance(step.result, dict) else {}
    turn = (result.get("turn/completed") or {}).get("turn") or {}
    status = turn.get("status")
    if status == "completed":
        return []
    return [f"step {step.label}: its turn ended {status or 'without turn/completed'}"]


def _asked_for_compaction(observation: Observation, step: StepRecord) -> list[str]:
    by_index = {r.index: r for r in observation.requests}
    kinds = [
        normalize_request(by_index[i].body, by_index[i].path)["kind"]
        for i in step.requests
        if isinstance(by_index[i].body, dict)
    ]
    if "compaction" in kinds:
        return []
    return [f"step {step.label}: codex asked the model for no compaction ({len(kinds)} request(s))"]


def _restarted(step: StepRecord) -> list[str]:
    result: dict[str, Any] = step.result if isinstance(step.result, dict) else {}
    previous = result.get("previous")
    if previous is None:
        return []  # the scenario's first process
    if previous.get("pid") == result.get("pid"):
        return [f"step {step.label}: the same process (pid {result.get('pid')}) answered after it"]
    if previous.get("returncode") is None:
        return [f"step {step.label}: the old process (pid {previous.get('pid')}) did not exit"]
    return []
