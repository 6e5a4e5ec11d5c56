"""How many findings hold, changed or broke, in the same words wherever they are counted:
the probe's closing lines, summary.md and the gate.

Assumptions (about codex) and fake-versus-real findings (about our fake) are counted
apart, so no reader adds one kind to the other.
"""

from __future__ import annotations

from collections.abc import Iterable

from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX, Verdict

VERDICTS = tuple(verdict.value for verdict in Verdict)
# What a fidelity verdict says of the fake: the same as the real one, or not.
FIDELITY_WORDS = {
    "holds": "same",
    "changed": "differ",
    "broken": "broken",
    "unsupported": "unsupported",
}
# Counted always; `unsupported` only where a release has some (old releases).
ALWAYS_COUNTED = ("holds", "changed", "broken")


def is_fidelity(finding_id: str) -> bool:
    return finding_id.startswith(FIDELITY_ID_PREFIX)


def tally(findings: Iterable[tuple[str, str, bool]]) -> str:
    """`assumptions: 13 holds, 3 changed (1 required), 0 broken; fake versus real: 11 same,
    0 differ, 0 broken` for (id, verdict, required) triples; a part without findings is left
    out."""
    listed = list(findings)
    assumptions = [(v, r) for i, v, r in listed if not is_fidelity(i)]
    fidelity = [v for i, v, _ in listed if is_fidelity(i)]
    parts = []
    if assumptions or not fidelity:
        counts = []
        for verdict in VERDICTS:
            matching = [required for v, required in assumptions if v == verdict]
            if verdict not in ALWAYS_COUNTED and not matching:
                continue
            required = sum(matching)
            of_them = f" ({required} required)" if verdict != "holds" and required else ""
            counts.append(f"{len(matching)} {verdict}{of_them}")
        parts.append("assumptions: " + ", ".join(counts))
    if fidelity:
        counts = [
            f"{fidelity.count(v)} {FIDELITY_WORDS[v]}"
            for v in VERDICTS
            if v in ALWAYS_COUNTED or fidelity.count(v)
        ]
        parts.append("fake versus real: " + ", ".join(counts))
    return "; ".join(parts)
