"""From scenario outcomes to findings: an assumption's verdict, and the fake's fidelity.

Nothing here runs anything: it reads outcomes. A scenario that broke makes every finding
that reads it `broken`, with the failure as evidence; a reading that cannot find what it
reads is `broken` too. So every finding asked for ends holds, changed or broken. An
assumption is judged by its reading (codex_probe/probes/domain/reading.py), the same code a
reproduction bundle judges codex's replay with.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from codex_probe.probes.domain import reading
from codex_probe.probes.domain.assumptions import Assumption
from codex_probe.probes.domain.expressions import refusal_rules
from codex_probe.probes.domain.fidelity import fidelity_of, surface_aspects
from codex_probe.probes.domain.findings import (
    BROKEN_PREFIX,
    CHANGED_PREFIX,
    FAKE_SECTION,
    FIDELITY_ID_PREFIX,
    FIDELITY_PREFIX,
    UNSUPPORTED_PREFIX,
    Fidelity,
    Finding,
    Verdict,
    differences,
    reproduce,
)
from codex_probe.probes.domain.observation import ScenarioOutcome
from codex_probe.probes.domain.watch import upstream_of


def judge_assumption(
    assumption: Assumption,
    version: str,
    outcome: ScenarioOutcome,
    fidelity: Fidelity | None = None,
    *,
    reproduce_flags: str = "",
) -> Finding:
    # Broken until the reading says otherwise; each way out makes the finding it ends with.
    finding = Finding(
        assumption.id,
        version,
        Verdict.BROKEN,
        assumption.required,
        assumption.spec_section,
        assumption.statement,
        {},
        assumption.expected,
        reproduce=reproduce(version, assumption.id, reproduce_flags),
        fidelity=fidelity,
    )
    observation = outcome.observation
    if outcome.unsupported is not None:
        return replace(
            finding,
            verdict=Verdict.UNSUPPORTED,
            evidence=[outcome.unsupported],
            summary=f"{UNSUPPORTED_PREFIX} {outcome.unsupported}",
        )
    if observation is None:
        broken = outcome.broken
        return replace(
            finding,
            evidence=[outcome.failure()] + ([broken.stderr_tail] if broken else []),
            summary=f"{BROKEN_PREFIX} {outcome.failure()}",
        )
    record = observation.to_record()
    judged = reading.judge(record, assumption.reads, assumption.expected, refusal_rules())
    failure = judged["failure"]
    if failure is not None and failure["kind"] == reading.PRECONDITION:
        unmet = reading.unmet_preconditions(reading.View(record))
        problems = [f"step {item['step']}: {item['detail']}" for item in unmet]
        return replace(
            finding,
            evidence=[f"precondition not met: {problem}" for problem in problems],
            summary=f"{BROKEN_PREFIX} precondition not met: {'; '.join(problems)}",
        )
    if failure is not None:
        return replace(
            finding,
            evidence=[f"the observation lacks what the probe reads: {failure['detail']}"],
            summary=f"{BROKEN_PREFIX} {assumption.id}: {failure['detail']}",
        )
    verdict, observed = Verdict(judged["verdict"]), judged["observed"]
    who = f"{observation.backend} {observation.version}"
    summary = ""
    if verdict is Verdict.CHANGED:
        summary = f"{CHANGED_PREFIX} {assumption.id} on {version}: " + "; ".join(
            differences(observed, assumption.expected)
        )
    return replace(
        finding,
        verdict=verdict,
        observed=observed,
        upstream=upstream_of(finding.id, verdict.value, observed),
        evidence=reading.evidence(
            reading.View(record), assumption.reads, who, observation.scenario
        ),
        summary=summary,
    )


def judge_fidelity(
    scenario: str,
    version: str,
    real: ScenarioOutcome,
    fake: ScenarioOutcome | None,
    profile: dict[str, Any],
    fake_problem: str | None = None,
) -> Finding:
    """Whether the fake, on `profile` ({source, path, ...}), observed what the real one did."""
    finding_id = f"{FIDELITY_ID_PREFIX}{scenario}"
    statement = (
        f"fake-codex on the {profile.get('source')} profile {profile.get('path')} is faithful "
        f"to codex-cli {version} in scenario {scenario}"
    )
    finding = Finding(
        finding_id,
        version,
        Verdict.BROKEN,
        False,
        FAKE_SECTION,
        statement,
        {"profile": profile},
        {"fake_matches_real": True},
        reproduce=reproduce(version, finding_id),
    )
    if real.unsupported is not None:  # nothing of the release's to imitate
        return replace(
            finding,
            verdict=Verdict.UNSUPPORTED,
            evidence=[real.unsupported],
            summary=f"{UNSUPPORTED_PREFIX} {real.unsupported}",
        )
    fidelity = None if fake is None else fidelity_of(real, fake)
    if fidelity is None:
        problems = [fake_problem] if fake_problem else []
        problems += [
            f"{kind}: {outcome.failure()}"
            for kind, outcome in (("real", real), ("fake", fake))
            if outcome is not None and outcome.observation is None
        ]
        evidence = problems or ["the fake did not run"]
        return replace(finding, evidence=evidence, summary=f"{BROKEN_PREFIX} {'; '.join(evidence)}")
    evidence = [f"fake profile: {profile['source']} {profile['path']}"]
    summary = ""
    if fidelity.diff:
        aspects = surface_aspects(fidelity.diff)
        if aspects:
            named = [
                f"{aspect} ({len(keys)}: {', '.join(keys[:3])}{' ...' if len(keys) > 3 else ''})"
                for aspect, keys in aspects.items()
            ]
            evidence.append("the surface differs in " + "; ".join(named))
        evidence.append(json.dumps(fidelity.diff)[:4000])
        summary = (
            f"{FIDELITY_PREFIX} scenario {scenario} on {version} "
            f"({profile['source']} profile): {evidence[1][:600]}"
        )
    return replace(
        finding,
        observed={"fake_matches_real": fidelity.fake_matches_real, "profile": profile},
        verdict=Verdict.HOLDS if fidelity.fake_matches_real else Verdict.CHANGED,
        fidelity=replace(fidelity, profile=profile),
        evidence=evidence,
        summary=summary,
    )
