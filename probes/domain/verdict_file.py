"""verdict.json: every finding per version, as the probe session and a history run write it."""

from __future__ import annotations

import time
from typing import Any

from codex_probe.harness.tool import TOOL
from codex_probe.probes.domain.assumptions import BY_ID
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX, Finding


def fidelity_statement(finding: Finding) -> str:
    scenario = finding.assumption.removeprefix(FIDELITY_ID_PREFIX)
    profile = finding.observed.get("profile") or {}
    return (
        f"fake-codex on the {profile.get('source')} profile {profile.get('path')} is faithful "
        f"to codex-cli {finding.version} in scenario {scenario}"
    )


def verdict_entry(finding: Finding) -> dict[str, Any]:
    """A finding as verdict.json holds it, with its assumption's registry facts."""
    assumption = BY_ID.get(finding.assumption)
    if assumption is None:
        return finding.to_json(
            required=False, spec_section="fake", statement=fidelity_statement(finding)
        )
    return finding.to_json(
        required=assumption.required,
        spec_section=assumption.spec_section,
        statement=assumption.statement,
    )


def verdict_document(
    findings: dict[str, dict[str, dict[str, Any]]],
    fake_profiles: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    return {
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "tool": TOOL,
        "versions": {v: dict(sorted(f.items())) for v, f in findings.items() if f},
        "fake_profiles": fake_profiles,
    }
