"""A finding as an Allure result: its statement, its labels, its status, and what it was
read from attached (the JSON-RPC transcript, the model requests, codex's stderr, the
finding itself, the reproduction bundle's README).

Written straight from the finding (reporting/allure_files.py), no test runner between:
`codex-probe report` turns the folder into the Allure page.
"""

from __future__ import annotations

import json
from pathlib import Path

from codex_probe.probes.domain.findings import Finding, Verdict
from codex_probe.probes.domain.observation import ScenarioOutcome
from codex_probe.reporting.allure_files import AllureResult, Attachment, Status, write_result

SPEC = "shared/spec/codex-runtime-instructions-prompt-split.md"
STATUS: dict[Verdict, Status] = {
    Verdict.HOLDS: "passed",
    Verdict.CHANGED: "failed",
    Verdict.BROKEN: "broken",
    Verdict.UNSUPPORTED: "skipped",  # nothing of the release's to judge
}


def write_finding_result(
    results_dir: Path, finding: Finding, outcome: ScenarioOutcome | None, out: Path
) -> Path:
    """The finding's result file in `results_dir`; `out` is the run's folder, which its
    reproduction bundle (if any) is relative to."""
    section = finding.spec_section
    result = AllureResult(
        name=f"{finding.id} [{finding.version}]",
        full_name=f"codex-probe.{finding.id}",
        status=STATUS[finding.verdict],
        message=_message(finding),
        description=finding.statement,
        labels=[
            ("epic", f"spec {section}"),
            ("feature", finding.id),
            ("severity", "critical" if finding.required else "normal"),
        ],
        parameters=[("codex version", finding.version)],
        links=[(f"spec section {section}", f"{SPEC}#{section}")],
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
