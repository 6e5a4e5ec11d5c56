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
from codex_probe.reporting.allure_files import (
    AllureResult,
    Attachment,
    Status,
    Step,
    write_result,
)
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
    """What the finding means for the run, in Allure's five words.

    Holds: passed. A required change: failed (the gate fails on it). A fake that differs:
    failed (ours to fix). Broken: broken. Unsupported: skipped (nothing of the release's to
    judge). An informative change is neither: not passed, since codex does otherwise than
    the design expects, and not failed, since the gate lets it through; Allure 3.18 counts
    a failed result as Failed in red even when it accepts it as known
    (`statusDetails.known`), so the one status that claims neither is `unknown`, and the
    result's category and group say what it is (docs/report.md).
    """
    if finding.verdict is Verdict.BROKEN:
        return "broken"
    if finding.verdict is Verdict.UNSUPPORTED:
        return "skipped"
    if finding.verdict is Verdict.CHANGED:
        return "failed" if finding.required or finding.is_fidelity else "unknown"
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
        description=describe(finding),
        labels=[
            ("parentSuite", group),
            ("epic", f"spec {section}"),
            ("feature", finding.id),
            ("severity", "critical" if finding.required else "normal"),
            ("tag", kind),
        ],
        parameters=[("codex version", finding.version), ("finding", finding.id)],
        details=[("verdict", finding.verdict.value), ("gated", _gated_words(finding))],
        steps=_value_steps(finding),
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


# What each group means, first on the result's page.
HEADLINES = {
    GATED: "Changed upstream, gated: the gate fails on it.",
    INFORMATIVE: "Changed upstream, informative: not gated.",
    BROKEN: "Harness broken: no verdict.",
    UNSUPPORTED: "Unsupported by this release: no verdict.",
    HOLDS: "Holds.",
    FAKE: "Fake versus real: this judges codex-probe's fake, not codex; never gated.",
}
# A value longer than this is cut on the page; finding.json (attached) has it whole.
MAX_VALUE_CHARS = 300
MAX_CELL_CHARS = 100  # in the description's table, which must fit the page's width


def describe(finding: Finding) -> str:
    """The result's description (Markdown): what the verdict means for the gate, the
    statement, and for a judged finding each value expected and observed, side by side."""
    group = group_of(finding)
    why = {
        GATED: f"codex-cli {finding.version} does otherwise than the design expects, and the "
        f"design requires it (spec {finding.spec_section}).",
        INFORMATIVE: f"codex-cli {finding.version} does otherwise than the design expects; "
        "the design does not require it, so `codex-probe gate` lets it through "
        "(`--strict` would not).",
        HOLDS: f"codex-cli {finding.version} does what the design expects.",
    }.get(group, finding.summary)
    lines = [f"**{HEADLINES[group]}** {why}".rstrip(), "", finding.statement]
    if rows := _value_rows(finding):
        lines += ["", "| value | | expected | observed |", "|---|---|---|---|", *rows]
    return "\n".join(lines)


def _value_rows(finding: Finding) -> list[str]:
    """Each expected value beside the observed one; then what was observed and not claimed."""
    rows = []
    for key, expected in finding.expected.items():
        observed = finding.observed.get(key)
        same = observed == expected
        words = "as expected" if same else "**differs**"
        rows.append(f"| `{key}` | {words} | {_cell(expected)} | {_cell(observed)} |")
    for key, observed in finding.observed.items():
        if key not in finding.expected:
            rows.append(f"| `{key}` | not claimed | — | {_cell(observed)} |")
    return rows


def _value_steps(finding: Finding) -> list[Step]:
    """One step per expected value of a judged finding: as expected, or both values."""
    if finding.verdict not in (Verdict.HOLDS, Verdict.CHANGED) or finding.is_fidelity:
        return []
    steps = []
    for key, expected in finding.expected.items():
        observed = finding.observed.get(key)
        if observed == expected:
            steps.append(Step(f"{key}: as expected, {_short(expected)}", "passed"))
        else:
            said = f"{key}: expected {_short(expected)}, observed {_short(observed)}"
            steps.append(Step(said, status_of(finding)))
    return steps


def _gated_words(finding: Finding) -> str:
    if finding.is_fidelity:
        return "no (our fake, not codex)"
    return "yes (required)" if finding.required else "no (informative; --strict gates it)"


def _short(value: object, limit: int = MAX_VALUE_CHARS) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cell(value: object) -> str:
    """A value in a Markdown table cell: code, one line, no column bar."""
    text = _short(value, MAX_CELL_CHARS).replace("|", "\\|")
    return f"`{text}`" if "`" not in text else f"``{text}``"


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
