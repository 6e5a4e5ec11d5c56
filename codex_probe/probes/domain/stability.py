"""Findings that differ between runs of the same release: a verdict nobody can trust.

`codex-probe probe --repeat N` probes a release N times. A finding whose verdict or
observed values (ids masked, where-it-ran left out) are not the same in every run is a
flip: it becomes broken, its evidence naming each distinct outcome and how often it came.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import replace
from typing import Any

from codex_probe.probes.domain.findings import BROKEN_PREFIX, Finding, Verdict

UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


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


def outcome_of(finding: Finding) -> str:
    """A finding's verdict and observed values, as one comparable string."""
    return json.dumps([finding.verdict.value, comparable(finding.observed)], sort_keys=True)


def flips(runs: list[dict[str, Finding]]) -> dict[str, Counter[str]]:
    """Per finding id seen in the runs, how often each distinct outcome came, if more than one."""
    tallies: dict[str, Counter[str]] = {}
    for findings in runs:
        for finding_id, finding in findings.items():
            tallies.setdefault(finding_id, Counter())[outcome_of(finding)] += 1
    return {finding_id: tally for finding_id, tally in tallies.items() if len(tally) > 1}


def steady_findings(runs: list[dict[str, Finding]]) -> dict[str, Finding]:
    """The first run's findings, every one that flipped made broken with its outcomes."""
    flipped = flips(runs)
    steady: dict[str, Finding] = {}
    for finding_id, finding in runs[0].items():
        tally = flipped.get(finding_id)
        if tally is None:
            steady[finding_id] = finding
            continue
        outcomes = [f"{count} of {len(runs)} runs: {value}" for value, count in tally.items()]
        steady[finding_id] = replace(
            finding,
            verdict=Verdict.BROKEN,
            evidence=[f"the outcome differs between runs: {o}" for o in outcomes],
            summary=f"{BROKEN_PREFIX} {finding_id} differs between {len(runs)} runs",
        )
    return steady
