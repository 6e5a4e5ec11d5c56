"""What a probe run prints when it ends: the finding-by-version tables (the same rows, in
the same order, the registry's, as summary.md), the fake profile each release ran on, and
what the changed and broken findings mean."""

from __future__ import annotations

from typing import Any

from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX, Finding
from codex_probe.probes.domain.tally import FIDELITY_WORDS, is_fidelity, tally
from codex_probe.probes.domain.verdict_file import VerdictReport
from codex_probe.probes.runner.scenarios import SCENARIOS

CELL = {"holds": "holds", "changed": "CHANGED", "broken": "BROKEN", "unsupported": "n/a"}
# The fake's verdicts in fidelity words (probes.tally), a difference in capitals.
FIDELITY_CELL = {"holds": FIDELITY_WORDS["holds"], "unsupported": "n/a"} | {
    verdict: FIDELITY_WORDS[verdict].upper() for verdict in ("changed", "broken")
}
NO_VERDICT = "-"
ORDER = {
    **{assumption.id: index for index, assumption in enumerate(ASSUMPTIONS)},
    **{
        f"{FIDELITY_ID_PREFIX}{name}": len(ASSUMPTIONS) + index
        for index, name in enumerate(SCENARIOS)
    },
}


def ordered_ids(report: VerdictReport) -> list[str]:
    """The registry's order, then ids it does not know, alphabetically."""
    ids = set(report.assumptions())
    return sorted(ids, key=lambda i: (ORDER.get(i, len(ORDER)), i))


def render_table(report: VerdictReport) -> list[str]:
    ids = ordered_ids(report)
    assumptions = [i for i in ids if not is_fidelity(i)]
    fidelity = [i for i in ids if is_fidelity(i)]
    lines = _table("assumption", assumptions, report, CELL, with_kind=True)
    if fidelity:
        lines += ["", *_table("fake versus real", fidelity, report, FIDELITY_CELL)]
    return lines


def _table(
    title: str,
    ids: list[str],
    report: VerdictReport,
    cell: dict[str, str],
    *,
    with_kind: bool = False,
) -> list[str]:
    versions = report.versions
    width = max([len(i) for i in ids] + [len(title)]) + 2
    kind_header = "kind".ljust(13) if with_kind else ""
    header = title.ljust(width) + "spec  " + kind_header + "".join(v.ljust(12) for v in versions)
    lines = [header, "-" * len(header)]
    for finding_id in ids:
        entries = [report.findings[v].get(finding_id) for v in versions]
        known = next(e for e in entries if e)
        kind = ("required" if known.required else "informative").ljust(13) if with_kind else ""
        cells = "".join((cell[e.verdict.value] if e else NO_VERDICT).ljust(12) for e in entries)
        lines.append(finding_id.ljust(width) + known.spec_section.ljust(6) + kind + cells)
    return lines


def profile_lines(fake_profiles: dict[str, dict[str, Any]]) -> list[str]:
    """The profile the fake ran on per version, what it cannot express, why it did not run."""
    lines = []
    for version, profile in fake_profiles.items():
        gaps = profile["gaps"]
        lines.append(
            f"fake profile for {version}: {profile['source']} {profile['path']}"
            + (f"; {len(gaps)} observation(s) it cannot express:" if gaps else "")
        )
        lines += [
            f"  {gap['field']}: {gap['scenario']} {gap['step']}: {gap['observed']} "
            f"(missing: {gap['missing']})"
            for gap in gaps
        ]
        if profile["problem"]:
            lines.append(f"  {profile['problem']}")
    return lines


def closing_lines(report: VerdictReport) -> list[str]:
    """The counts per version, then what the changed and broken findings mean."""
    every: list[Finding] = [f for v in report.versions for f in report.findings[v].values()]
    lines = [
        f"codex {version}: "
        + tally((f.id, f.verdict.value, f.required) for f in report.findings[version].values())
        for version in report.versions
    ]
    if any(f.verdict.value == "changed" and not f.is_fidelity for f in every):
        lines.append(
            "A changed assumption is what codex does, not a failure of this run: it is reported "
            "(summary.md, the Allure report), and `codex-probe gate` says whether it blocks a "
            "release."
        )
    unsupported = [f for f in every if f.verdict.value == "unsupported"]
    if unsupported:
        lines.append(
            f"{len(unsupported)} finding(s) are n/a: the release lacks a method their scenario "
            "needs (its own schema says so), so there is nothing to judge."
        )
    broken = [f for f in every if f.verdict.value == "broken"]
    if broken:
        lines.append(
            f"{len(broken)} finding(s) are broken: the run could not measure them, so this run "
            "gives no verdict for them (exit 3)."
        )
    return lines
