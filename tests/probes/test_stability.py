"""Repeated runs of a release: a finding that differs between them is not a verdict."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.probes.domain.findings import Finding, Verdict
from codex_probe.probes.domain.stability import flips, steady_findings


def finding(verdict: Verdict, **observed: Any) -> Finding:
    return Finding(
        "a", "0.171.0", verdict, True, "5.1", "a", observed, {"x": True}, ["the evidence"]
    )


def test_the_same_outcome_in_every_run_is_no_flip_even_with_other_ids() -> None:
    runs = [
        {
            "a": finding(
                Verdict.HOLDS, x=True, message="thread 01a2314d-c4cb-7e80-b0c3-de5c25900389"
            )
        },
        {
            "a": finding(
                Verdict.HOLDS, x=True, message="thread 01a2314e-466b-7bc1-8116-6403a8e4d652"
            )
        },
    ]
    assert flips(runs) == {}
    assert steady_findings(runs)["a"].verdict is Verdict.HOLDS


def test_a_finding_whose_verdict_or_observation_differs_becomes_broken_with_its_outcomes() -> None:
    runs = [
        {"a": finding(Verdict.HOLDS, x=True)},
        {"a": finding(Verdict.CHANGED, x=False)},
        {"a": finding(Verdict.HOLDS, x=True)},
    ]
    assert sorted(flips(runs)["a"].values()) == [1, 2]
    steady = steady_findings(runs)["a"]
    assert steady.verdict is Verdict.BROKEN
    assert steady.evidence == [
        'the outcome differs between runs: 2 of 3 runs: ["holds", {"x": true}]',
        'the outcome differs between runs: 1 of 3 runs: ["changed", {"x": false}]',
    ]


@pytest.mark.real
def test_probe_repeat_reports_that_no_finding_differs_between_runs(
    tmp_path: Path, default_codex: Installation
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "codex_probe.cli", "probe", "--codex", default_codex.version,
         "--repeat", "2", "--no-fidelity", "--only", "error-steer-wrong-turn",
         "--only", "start-applies-instructions", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "repeated 2 times: no finding differs between runs" in done.stdout
    verdict = json.loads((tmp_path / "verdict.json").read_text())
    assert verdict["repeat"] == 2 and verdict["flips"] == {}
