"""The probes: one test per assumption and version, and one per scenario for the fake."""

from __future__ import annotations

import json
from typing import Any

import allure
import pytest

from probes.assumptions import BY_ID
from probes.checks import CHECKS
from probes.findings import (
    BROKEN_PREFIX,
    CHANGED_PREFIX,
    FIDELITY_ID_PREFIX,
    FIDELITY_PREFIX,
    Finding,
    Verdict,
    judge,
)
from probes.suite.observations import ObservationCache, ScenarioOutcome

SPEC = "shared/spec/codex-runtime-instructions-prompt-split.md"


class ProbeBroken(RuntimeError):
    """The probe could not measure: the backend or the harness failed."""


def reproduce(version: str, finding_id: str) -> str:
    return f"codex-probe probe --codex {version} --only {finding_id}"


def test_assumption(
    assumption_id: str,
    codex_version: str,
    observations: ObservationCache,
    record_finding: Any,
) -> None:
    assumption = BY_ID[assumption_id]
    _label(
        assumption_id,
        assumption.spec_section,
        codex_version,
        assumption.required,
        assumption.statement,
    )
    outcome = observations.outcome("real", codex_version, assumption.scenario)
    finding = Finding(
        assumption_id,
        codex_version,
        Verdict.BROKEN,
        {},
        assumption.expected,
        reproduce=reproduce(codex_version, assumption_id),
    )
    problem = ""
    if outcome.observation is None:
        assert outcome.broken is not None
        finding.evidence = [str(outcome.broken), outcome.broken.stderr_tail]
        problem = f"{BROKEN_PREFIX} {outcome.broken}"
    else:
        _attach_observation(outcome)
        try:
            observed, evidence = CHECKS[assumption_id](outcome.observation)
        except (LookupError, KeyError, TypeError) as error:
            finding.evidence = [f"the observation lacks what the probe reads: {error!r}"]
            problem = f"{BROKEN_PREFIX} {assumption_id}: {error!r}"
        else:
            finding.verdict, differences = judge(observed, assumption.expected)
            finding.observed, finding.evidence = observed, evidence
            if differences:
                problem = f"{CHANGED_PREFIX} {assumption_id} on {codex_version}: " + "; ".join(
                    differences
                )
    if outcome.observation is not None and observations.compare_with_fake:
        finding.fidelity = observations.fidelity(codex_version, assumption.scenario)
    entry = finding.to_json(
        required=assumption.required,
        spec_section=assumption.spec_section,
        statement=assumption.statement,
    )
    record_finding(codex_version, assumption_id, entry)
    allure.attach(json.dumps(entry, indent=2), "finding.json", allure.attachment_type.JSON)
    if finding.verdict is Verdict.BROKEN:
        raise ProbeBroken(problem)
    if finding.verdict is Verdict.CHANGED:
        pytest.fail(f"{problem}\nReproduce with: {finding.reproduce}", pytrace=False)


def test_fake_matches_real(
    fidelity_scenario: str,
    codex_version: str,
    observations: ObservationCache,
    record_finding: Any,
) -> None:
    finding_id = f"{FIDELITY_ID_PREFIX}{fidelity_scenario}"
    _label(
        finding_id,
        "fake",
        codex_version,
        False,
        f"The fake imitating {codex_version} gives the same normalized observation as the "
        f"real codex-cli in scenario {fidelity_scenario}.",
    )
    fidelity = observations.fidelity(codex_version, fidelity_scenario)
    finding = Finding(
        finding_id,
        codex_version,
        Verdict.BROKEN,
        {},
        {"fake_matches_real": True},
        reproduce=reproduce(codex_version, finding_id),
    )
    if fidelity is None:
        broken = [
            observations.outcome(k, codex_version, fidelity_scenario).broken
            for k in ("real", "fake")
        ]
        finding.evidence = [str(b) for b in broken if b is not None]
    else:
        finding.observed = {"fake_matches_real": fidelity["fake_matches_real"]}
        finding.verdict = Verdict.HOLDS if fidelity["fake_matches_real"] else Verdict.CHANGED
        finding.fidelity = fidelity
        finding.evidence = [json.dumps(fidelity["diff"])[:4000]] if fidelity["diff"] else []
        allure.attach(
            json.dumps(fidelity["diff"], indent=2),
            "deepdiff real vs fake",
            allure.attachment_type.JSON,
        )
    entry = finding.to_json(
        required=False,
        spec_section="fake",
        statement=(
            f"fake-codex --profile {codex_version} is faithful in scenario {fidelity_scenario}"
        ),
    )
    record_finding(codex_version, finding_id, entry)
    if finding.verdict is Verdict.BROKEN:
        raise ProbeBroken(f"{BROKEN_PREFIX} {'; '.join(finding.evidence)}")
    if finding.verdict is Verdict.CHANGED:
        pytest.fail(
            f"{FIDELITY_PREFIX} scenario {fidelity_scenario} on {codex_version}: "
            f"{finding.evidence[0][:600]}\nReproduce with: {finding.reproduce}",
            pytrace=False,
        )


def _label(finding_id: str, section: str, version: str, required: bool, statement: str) -> None:
    allure.dynamic.epic(f"spec {section}")
    allure.dynamic.feature(finding_id)
    allure.dynamic.parameter("codex version", version)
    allure.dynamic.severity(
        allure.severity_level.CRITICAL if required else allure.severity_level.NORMAL
    )
    allure.dynamic.description(statement)
    allure.dynamic.link(f"{SPEC}#{section}", name=f"spec section {section}")


def _attach_observation(outcome: ScenarioOutcome) -> None:
    observation = outcome.observation
    assert observation is not None
    allure.attach(
        observation.transcript.to_jsonl(), "json-rpc transcript.jsonl", allure.attachment_type.TEXT
    )
    requests = [r.to_json() for r in observation.requests]
    allure.attach(
        json.dumps(requests, indent=1), "model requests.json", allure.attachment_type.JSON
    )
    if observation.stderr_tail:
        allure.attach(observation.stderr_tail, "server stderr (tail)", allure.attachment_type.TEXT)
