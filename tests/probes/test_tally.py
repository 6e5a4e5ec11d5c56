"""Counts name assumptions and the fake's fidelity apart, in the same words everywhere."""

from __future__ import annotations

from codex_probe.probes.domain.tally import tally


def test_assumptions_and_fidelity_are_counted_apart() -> None:
    findings = [
        ("start-applies-instructions", "holds", True),
        ("resume-refresh-cold", "changed", False),
        ("error-steer-wrong-turn", "changed", True),
        ("fake-fidelity-start", "holds", False),
        ("fake-fidelity-errors", "changed", False),
    ]
    assert tally(findings) == (
        "assumptions: 1 holds, 2 changed (1 required), 0 broken; "
        "fake versus real: 1 same, 1 differ, 0 broken"
    )


def test_a_run_without_fidelity_findings_counts_only_assumptions() -> None:
    assert tally([("start-applies-instructions", "broken", True)]) == (
        "assumptions: 0 holds, 0 changed, 1 broken (1 required)"
    )
