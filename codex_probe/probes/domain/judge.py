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
        finding.verdict = Verdict.UNSUPPORTED
        finding.evidence = [outcome.unsupported]
        finding.summary = f"{UNSUPPORTED_PREFIX} {outcome.unsupported}"
        return finding
    if observation is None:
        broken = outcome.broken
        finding.evidence = [outcome.failure()] + ([broken.stderr_tail] if broken else [])
        finding.summary = f"{BROKEN_PREFIX} {outcome.failure()}"
        return finding
    record = observation.to_record()
    judged = reading.judge(record, assumption.reads, assumption.expected, refusal_rules())
    failure = judged["failure"]
    if failure is not None and failure["kind"] == reading.PRECONDITION:
        unmet = reading.unmet_preconditions(reading.View(record))
        problems = [f"step {item['step']}: {item['detail']}" for item in unmet]
        finding.evidence = [f"precondition not met: {problem}" for problem in problems]
        finding.summary = f"{BROKEN_PREFIX} precondition not met: {'; '.join(problems)}"
        return finding
    if failure is not None:
        finding.evidence = [f"the observation lacks what the probe reads: {failure['detail']}"]
        finding.summary = f"{BROKEN_PREFIX} {assumption.id}: {failure['detail']}"
        return finding
    finding.verdict, finding.observed = Verdict(judged["verdict"]), judged["observed"]
    finding.upstream = upstream_of(finding.id, finding.verdict.value, finding.observed)
    who = f"{observation.backend} {observation.version}"
    view = reading.View(record)
    finding.evidence = reading.evidence(view, assumption.reads, who, observation.scenario)
    if finding.verdict is Verdict.CHANGED:
        finding.summary = f"{CHANGED_PREFIX} {assumption.id} on {version}: " + "; ".join(
            differences(finding.observed, assumption.expected)
        )
    return finding


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
        finding.verdict = Verdict.UNSUPPORTED
        finding.evidence = [real.unsupported]
        finding.summary = f"{UNSUPPORTED_PREFIX} {real.unsupported}"
        return finding
    fidelity = None if fake is None else fidelity_of(real, fake)
    if fidelity is None:
        problems = [fake_problem] if fake_problem else []
        problems += [
            f"{kind}: {outcome.failure()}"
            for kind, outcome in (("real", real), ("fake", fake))
            if outcome is not None and outcome.observation is None
        ]
        finding.evidence = problems or ["the fake did not run"]
        finding.summary = f"{BROKEN_PREFIX} {'; '.join(finding.evidence)}"
        return finding
    finding.observed = {"fake_matches_real": fidelity.fake_matches_real, "profile": profile}
    finding.verdict = Verdict.HOLDS if fidelity.fake_matches_real else Verdict.CHANGED
    finding.fidelity = replace(fidelity, profile=profile)
    finding.evidence = [f"fake profile: {profile['source']} {profile['path']}"]
    if fidelity.diff:
        aspects = surface_aspects(fidelity.diff)
        if aspects:
            named = [
                f"{aspect} ({len(keys)}: {', '.join(keys[:3])}{' ...' if len(keys) > 3 else ''})"
                for aspect, keys in aspects.items()
            ]
            finding.evidence.append("the surface differs in " + "; ".join(named))
        finding.evidence.append(json.dumps(fidelity.diff)[:4000])
        finding.summary = (
            f"{FIDELITY_PREFIX} scenario {scenario} on {version} "
            f"({profile['source']} profile): {finding.evidence[1][:600]}"
        )
    return finding
