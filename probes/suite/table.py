"""The finding-by-version tables printed at the end of a probe run: the same rows, in the
same order (the registry's, which is the spec's), as summary.md."""

from __future__ import annotations

from typing import Any

from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX
from codex_probe.probes.domain.tally import FIDELITY_WORDS, is_fidelity
from codex_probe.probes.runner.scenarios import SCENARIOS

CELL = {"holds": "holds", "changed": "CHANGED", "broken": "BROKEN"}
# The fake's verdicts in fidelity words (probes.tally), a difference in capitals.
FIDELITY_CELL = {"holds": FIDELITY_WORDS["holds"]} | {
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


def ordered_ids(findings: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    """The registry's order, then ids it does not know, alphabetically."""
    ids = {finding_id for per_version in findings.values() for finding_id in per_version}
    return sorted(ids, key=lambda i: (ORDER.get(i, len(ORDER)), i))


def render_table(findings: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    ids = ordered_ids(findings)
    assumptions = [i for i in ids if not is_fidelity(i)]
    fidelity = [i for i in ids if is_fidelity(i)]
    lines = _table("assumption", assumptions, findings, CELL, with_kind=True)
    if fidelity:
        lines += ["", *_table("fake versus real", fidelity, findings, FIDELITY_CELL)]
    return lines


def _table(
    title: str,
    ids: list[str],
    findings: dict[str, dict[str, dict[str, Any]]],
    cell: dict[str, str],
    *,
    with_kind: bool = False,
) -> list[str]:
    versions = list(findings)
    width = max([len(i) for i in ids] + [len(title)]) + 2
    kind_header = "kind".ljust(13) if with_kind else ""
    header = title.ljust(width) + "spec  " + kind_header + "".join(v.ljust(12) for v in versions)
    lines = [header, "-" * len(header)]
    for finding_id in ids:
        entries = [findings[v].get(finding_id) for v in versions]
        known = next(e for e in entries if e)
        kind = ("required" if known["required"] else "informative").ljust(13) if with_kind else ""
        cells = "".join((cell[e["verdict"]] if e else NO_VERDICT).ljust(12) for e in entries)
        lines.append(finding_id.ljust(width) + str(known["spec_section"]).ljust(6) + kind + cells)
    return lines
