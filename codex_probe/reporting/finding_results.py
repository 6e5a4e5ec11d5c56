"""A finding as an Allure result: its statement, its labels, its status, and what it was
read from attached (the JSON-RPC transcript, the model requests, codex's stderr, the
finding itself, the reproduction bundle's README).

Written straight from the finding (reporting/allure_files.py), no test runner between:
`codex-probe report` turns the folder into the Allure page.
"""

from __future__ import annotations

import json
from pathlib import Path

from codex_probe.probes.domain.assumptions import BY_ID
from codex_probe.probes.domain.findings import Finding, Verdict
from codex_probe.probes.domain.observation import ScenarioOutcome
from codex_probe.reporting.allure_files import AllureResult, Attachment, Status, write_result
from codex_probe.reporting.table import ORDER

SPEC = "shared/spec/codex-runtime-instructions-prompt-split.md"
# What a person opening the page should see first, in this order: the changes the gate
# fails on, the changes it reports, what the harness could not measure, what the release
# cannot run, what holds, and last our own fake against the real codex-cli.
GATED = "Changed upstream: gated (required)"
INFORMATIVE = "Changed upstream: informative (not gated)"
BROKEN, UNSUPPORTED = "Harness broken: no verdict", "Unsupported by this release"
HOLDS, FAKE = "Holds", "Fake versus real (our fake, not codex)"
GROUPS = (GATED, INFORMATIVE, BROKEN, UNSUPPORTED, HOLDS, FAKE)


def group_of(finding: Finding) -> str:
    if finding.is_fidelity:
        return FAKE
    if finding.verdict is Verdict.CHANGED:
        return GATED if finding.required else INFORMATIVE
    return {Verdict.BROKEN: BROKEN, Verdict.UNSUPPORTED: UNSUPPORTED}.get(finding.verdict, HOLDS)


def status_of(finding: Finding) -> Status:
    """An informative change is what codex does and the gate lets through: never a failure.
    A required one fails; a broken probe is broken; a fake that differs fails (ours)."""
    if finding.verdict is Verdict.BROKEN:
        return "broken"
    if finding.verdict is Verdict.UNSUPPORTED:
        return "skipped"  # nothing of the release's to judge
    if finding.verdict is Verdict.CHANGED and (finding.required or finding.is_fidelity):
        return "failed"
    return "passed"


def section_key(section: str) -> tuple[float, ...]:
    """Spec sections in the spec's order (4.5 before 4.6 before 5.1); ours ('fake') last."""
    try:
        return tuple(float(part) for part in section.split("."))
    except ValueError:
        return (float("inf"),)


# Every finding id, in the spec's order of sections, then the registry's.
SPEC_ORDER = sorted(
    ORDER, key=lambda i: (section_key(BY_ID[i].spec_section if i in BY_ID else "fake"), ORDER[i])
)


def rank(finding: Finding) -> int:
    """Where the finding's result sorts: its group, then its place in the spec's order."""
    place = SPEC_ORDER.index(finding.id) if finding.id in SPEC_ORDER else len(SPEC_ORDER)
    return GROUPS.index(group_of(finding)) * (len(SPEC_ORDER) + 1) + place


def write_finding_result(
    results_dir: Path, finding: Finding, outcome: ScenarioOutcome | None, out: Path
) -> Path:
    """The finding's result file in `results_dir`; `out` is the run's folder, which its
    reproduction bundle (if any) is relative to."""
    section = finding.spec_section
    group = group_of(finding)
    kind = "required" if finding.required else "informative"
    result = AllureResult(
        name=finding.statement,
        full_name=f"codex-probe.{finding.id}",
        status=status_of(finding),
        message=_message(finding),
        description=(
            f"`{finding.id}` on codex-cli {finding.version}: **{finding.verdict.value}** "
            f"({kind}, spec {section}).\n\n{finding.statement}"
        ),
        labels=[
            ("parentSuite", group),
            ("epic", f"spec {section}"),
            ("feature", finding.id),
            ("severity", "critical" if finding.required else "normal"),
            ("tag", kind),
        ],
        parameters=[("codex version", finding.version), ("finding", finding.id)],
        links=[(f"spec section {section}", f"{SPEC}#{section}")],
        order=rank(finding),
    )
    result.attachments += _observation(outcome)
    entry = json.dumps(finding.to_json(), indent=2)
    result.attachments.append(Attachment("finding.json", entry, "application/json", "json"))
    if finding.fidelity is not None and finding.is_fidelity:
        diff = json.dumps(finding.fidelity.diff, indent=2)
        result.attachments.append(
            Attachment("deepdiff real vs fake", diff, "application/json", "json")
        )
    if finding.repro is not None:
        if finding.repro.path is None:
            result.attachments.append(Attachment("no reproduction bundle", finding.repro.why))
        else:
            # The page is OUT/html/index.html: the bundle is one folder up, as in the artifact.
            result.links.append(("reproduction bundle", f"../{finding.repro.path}/README.md"))
            readme = (out / finding.repro.path / "README.md").read_text(encoding="utf-8")
            result.attachments.append(Attachment("reproduction bundle README.md", readme))
    return write_result(results_dir, result)


def _message(finding: Finding) -> str:
    if finding.verdict is Verdict.CHANGED and not finding.is_fidelity and not finding.required:
        # Not a failure: the gate lets it through (with --strict it does not).
        return f"{finding.summary} (informative: not gated)\nReproduce with: {finding.reproduce}"
    if finding.verdict is Verdict.CHANGED:
        return f"{finding.summary}\nReproduce with: {finding.reproduce}"
    if finding.verdict in (Verdict.BROKEN, Verdict.UNSUPPORTED):
        return finding.summary
    return ""


def _observation(outcome: ScenarioOutcome | None) -> list[Attachment]:
    observation = None if outcome is None else outcome.observation
    if observation is None:
        return []
    requests = json.dumps([r.to_json() for r in observation.requests], indent=1)
    found = [
        Attachment("json-rpc transcript.jsonl", observation.transcript.to_jsonl()),
        Attachment("model requests.json", requests, "application/json", "json"),
    ]
    if observation.stderr_tail:
        found.append(Attachment("server stderr (tail)", observation.stderr_tail))
    return found
