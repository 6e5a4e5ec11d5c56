"""The probes: one test per assumption and version, and one per scenario for the fake."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import allure
import pytest

from codex_probe.probes.domain.assumptions import BY_ID
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX, Finding, Verdict
from codex_probe.probes.domain.observation import ScenarioOutcome
from codex_probe.probes.domain.verdict_file import verdict_entry
from codex_probe.probes.releases.repro.bundle import bundle_in_report
from codex_probe.probes.suite.release_runs import ReleaseRuns

SPEC = "shared/spec/codex-runtime-instructions-prompt-split.md"


class ProbeBroken(RuntimeError):
    """The probe could not measure: the backend or the harness failed."""


def test_assumption(
    assumption_id: str,
    codex_version: str,
    release_runs: ReleaseRuns,
    record_finding: Any,
    pytestconfig: pytest.Config,
) -> None:
    assumption = BY_ID[assumption_id]
    _label(
        assumption_id,
        assumption.spec_section,
        codex_version,
        assumption.required,
        assumption.statement,
    )
    run = release_runs.get(codex_version)
    finding = run.findings[assumption_id]
    outcome = run.real[assumption.scenario]
    _attach_observation(outcome)
    entry = verdict_entry(finding)
    # What upstream is shown: a changed or broken finding of the real codex, as a bundle.
    if finding.verdict is not Verdict.HOLDS and release_runs.subject.kind == "real":
        out = Path(pytestconfig.getoption("--probe-out"))
        entry["repro"] = bundle_in_report(out, finding, outcome)
        _attach_bundle(out, entry["repro"])
    record_finding(codex_version, assumption_id, entry)
    allure.attach(json.dumps(entry, indent=2), "finding.json", allure.attachment_type.JSON)
    _report(finding)


def test_fake_matches_real(
    fidelity_scenario: str,
    codex_version: str,
    release_runs: ReleaseRuns,
    record_finding: Any,
) -> None:
    finding_id = f"{FIDELITY_ID_PREFIX}{fidelity_scenario}"
    statement = (
        f"The fake imitating {codex_version} gives the same normalized observation as the "
        f"real codex-cli in scenario {fidelity_scenario}."
    )
    _label(finding_id, "fake", codex_version, False, statement)
    run = release_runs.get(codex_version)
    finding = run.findings[finding_id]
    if finding.fidelity is not None:
        allure.attach(
            json.dumps(finding.fidelity["diff"], indent=2),
            "deepdiff real vs fake",
            allure.attachment_type.JSON,
        )
    entry = verdict_entry(finding)
    record_finding(codex_version, finding_id, entry)
    _report(finding)


def _report(finding: Finding) -> None:
    if finding.verdict is Verdict.BROKEN:
        raise ProbeBroken(finding.summary)
    if finding.verdict is Verdict.CHANGED:
        pytest.fail(f"{finding.summary}\nReproduce with: {finding.reproduce}", pytrace=False)


def _label(finding_id: str, section: str, version: str, required: bool, statement: str) -> None:
    allure.dynamic.epic(f"spec {section}")
    allure.dynamic.feature(finding_id)
    allure.dynamic.parameter("codex version", version)
    allure.dynamic.severity(
        allure.severity_level.CRITICAL if required else allure.severity_level.NORMAL
    )
    allure.dynamic.description(statement)
    allure.dynamic.link(f"{SPEC}#{section}", name=f"spec section {section}")


def _attach_bundle(out: Path, repro: dict[str, Any]) -> None:
    if repro["path"] is None:
        allure.attach(repro["why"], "no reproduction bundle", allure.attachment_type.TEXT)
        return
    # The page is OUT/html/index.html: the bundle is one folder up, as in the artifact.
    allure.dynamic.link(f"../{repro['path']}/README.md", name="reproduction bundle")
    readme = (out / repro["path"] / "README.md").read_text(encoding="utf-8")
    allure.attach(readme, "reproduction bundle README.md", allure.attachment_type.TEXT)


def _attach_observation(outcome: ScenarioOutcome) -> None:
    observation = outcome.observation
    if observation is None:
        return
    allure.attach(
        observation.transcript.to_jsonl(), "json-rpc transcript.jsonl", allure.attachment_type.TEXT
    )
    requests = [r.to_json() for r in observation.requests]
    allure.attach(
        json.dumps(requests, indent=1), "model requests.json", allure.attachment_type.JSON
    )
    if observation.stderr_tail:
        allure.attach(observation.stderr_tail, "server stderr (tail)", allure.attachment_type.TEXT)
