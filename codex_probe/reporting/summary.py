"""`summary.md`: what a person reads in a pull request, in the order they need it.

First the gate's decision (as `codex-probe gate` takes this verdict.json, without a
baseline), then a table of the required assumptions (what the gate judges) and one of the
informative ones (reported, never gated: a change there is not marked ❌). Below, every
changed or broken finding gets its own section, required first: the statement of the
design, what was expected and observed, the evidence, one command to paste, and the link to
its reproduction bundle (or why it has none). The fake-versus-real comparison, which judges
our fake and not codex, has its own table and sections after that.
"""

from __future__ import annotations

import json
from typing import Any

from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.domain.findings import Finding
from codex_probe.probes.domain.tally import is_fidelity, tally
from codex_probe.probes.domain.verdict_file import VerdictReport
from codex_probe.reporting.gate import evaluate

CELL = {
    "holds": "✅ holds",
    "changed": "❌ changed",
    "broken": "⚠️ broken",
    "unsupported": "🚫 n/a (unsupported)",
}
# An informative change is what codex does and the gate lets through: not a failure.
INFORMATIVE_CELL = {**CELL, "changed": "🔸 changed, not gated"}
FIDELITY_CELL = {
    "holds": "✅ same",
    "changed": "❌ differs",
    "broken": "⚠️ broken",
    "unsupported": "🚫 n/a (unsupported)",
}
NO_VERDICT = "— no verdict"
FAKE_DIVERGES = " · fake ≠ real"
# Observed/expected values longer than this are cut here; the Allure report and
# verdict.json keep them whole.
MAX_VALUE_CHARS = 1500
REGISTRY_ORDER = {assumption.id: index for index, assumption in enumerate(ASSUMPTIONS)}


def render_summary(report: VerdictReport) -> str:
    lines = ["# codex-probe: do the design's assumptions hold?", ""]
    if report.generated_at:
        lines += [f"Generated {report.generated_at} by {report.tool or 'codex-probe'}.", ""]
    if not report.versions:
        return "\n".join([*lines, "The verdict file holds no versions: nothing was probed.", ""])
    assumptions = [a for a in _ordered_ids(report) if not is_fidelity(a)]
    fidelity = [a for a in _ordered_ids(report) if is_fidelity(a)]
    required = [a for a in assumptions if _required(report, a)]
    informative = [a for a in assumptions if a not in required]
    lines += [_gate_line(report), "", *_counts(report), ""]
    if required:
        lines += ["## Required assumptions (the gate judges these)", ""]
        lines += [*_table(report, required, CELL, with_kind=True), ""]
    if informative:
        lines += ["## Informative assumptions (reported, not gated)", ""]
        lines += [*_table(report, informative, INFORMATIVE_CELL, with_kind=True), ""]
    attention = [f for f in _findings(report, required + informative) if f.verdict != "holds"]
    if attention:
        lines += ["## Changed or broken", ""]
        for finding in attention:
            lines += _section(finding)
    if fidelity:
        lines += ["## Fake versus real", "", *_table(report, fidelity, FIDELITY_CELL), ""]
    diverging = [f for f in _findings(report, assumptions + fidelity) if _fake_differs(f)]
    if diverging:
        lines += ["## Fake diverges from real", ""]
        for finding in diverging:
            lines += _fidelity_section(finding)
    return "\n".join(lines).rstrip() + "\n"


def _gate_line(report: VerdictReport) -> str:
    gate = evaluate(report, report.versions)
    return (
        f"**Gate: {gate.word}** (exit {gate.exit_code}: {gate.meaning}; `codex-probe gate` "
        "on this verdict.json, without a baseline)."
    )


def _required(report: VerdictReport, assumption: str) -> bool:
    return any(
        report.findings[v][assumption].required
        for v in report.versions
        if assumption in report.findings[v]
    )


def _ordered_ids(report: VerdictReport) -> list[str]:
    """The registry's order (the spec's), then ids it does not know, as first seen."""
    seen = report.assumptions()
    return sorted(seen, key=lambda a: (REGISTRY_ORDER.get(a, len(REGISTRY_ORDER)), seen.index(a)))


def _findings(report: VerdictReport, assumptions: list[str]) -> list[Finding]:
    return [
        report.findings[version][assumption]
        for assumption in assumptions
        for version in report.versions
        if assumption in report.findings[version]
    ]


def _fake_differs(finding: Finding) -> bool:
    return finding.fake_diverges or (is_fidelity(finding.id) and finding.verdict != "holds")


def _counts(report: VerdictReport) -> list[str]:
    return [
        f"- codex {version}: "
        + tally((f.id, f.verdict.value, f.required) for f in report.findings[version].values())
        for version in report.versions
    ]


def _table(
    report: VerdictReport, assumptions: list[str], cell: dict[str, str], *, with_kind: bool = False
) -> list[str]:
    versions = report.versions
    header = ["finding" if not with_kind else "assumption", "spec"]
    header += [f"codex {v}" for v in versions]
    rows = [_row(header), _row(["---"] * len(header))]
    for assumption in assumptions:
        known = [
            report.findings[v][assumption] for v in versions if assumption in report.findings[v]
        ]
        cells = [f"`{assumption}`", _escape(known[0].spec_section)]
        for version in versions:
            finding = report.findings[version].get(assumption)
            if finding is None:
                cells.append(NO_VERDICT)
            else:
                marker = FAKE_DIVERGES if with_kind and finding.fake_diverges else ""
                cells.append(cell[finding.verdict] + marker)
        rows.append(_row(cells))
    return rows


def _section(finding: Finding) -> list[str]:
    kind = "required" if finding.required else "informative"
    gated = "gated" if finding.required else "not gated"
    lines = [
        f"### `{finding.id}` on codex {finding.version}: {finding.verdict} ({kind}, {gated})",
        "",
        f"Spec {finding.spec_section} ({kind}). {finding.statement}".rstrip(),
        "",
        f"- expected: {_value(finding.expected)}",
        f"- observed: {_value(finding.observed)}",
        "",
    ]
    if finding.evidence:
        lines += ["Evidence:", "", *(_evidence_item(item) for item in finding.evidence), ""]
    return [*lines, f"Reproduce with: `{finding.reproduce}`", "", *_bundle(finding)]


def _bundle(finding: Finding) -> list[str]:
    """Where the finding's reproduction bundle is: for someone without codex-probe."""
    repro = finding.repro
    if repro is None:
        return []
    if repro.path is None:
        return [f"No reproduction bundle: {repro.why}", ""]
    return [
        f"Reproduction bundle (Python and the codex binary only): [{repro.path}]"
        f"({repro.path}/README.md), run with `{repro.run}`",
        "",
    ]


def _fidelity_section(finding: Finding) -> list[str]:
    diff = finding.fidelity.diff if finding.fidelity is not None else list(finding.evidence)
    title = f"### `{finding.id}` on codex {finding.version}"
    if finding.verdict == "broken":
        explanation = "The comparison could not be made (one of the two runs broke):"
    else:
        explanation = (
            "The fake app-server, run on the same scenario with this version's profile, "
            "observed something else than the real codex-cli (deepdiff, real → fake):"
        )
    return [
        title,
        "",
        explanation,
        "",
        "```json",
        json.dumps(diff, ensure_ascii=False, indent=2, default=str),
        "```",
        "",
        f"Reproduce with: `{finding.reproduce}`",
        "",
    ]


def _evidence_item(item: str) -> str:
    if "\n" not in item:
        return f"- {item}"
    indented = "\n".join("  " + line for line in item.splitlines())
    return f"-\n  ```\n{indented}\n  ```"


def _value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    if len(text) > MAX_VALUE_CHARS:
        text = text[:MAX_VALUE_CHARS] + " …(cut; whole in verdict.json)"
    return f"`{text}`" if "`" not in text else f"``{text}``"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _escape(text: str) -> str:
    return text.replace("|", "\\|")
