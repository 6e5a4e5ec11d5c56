"""A contract's verification as text: the answer, then each interaction with the rules it
meets (ERR and WARN each on a line, INFO counted)."""

from __future__ import annotations

from codex_probe.probes.contracts.verify import BREAKING, COMPATIBLE, Verification
from codex_probe.probes.domain.surface.rules import Severity

ANSWERS = {COMPATIBLE: "compatible", BREAKING: "breaking"}


def render_verification(
    verification: Verification, contract: str, fail_on: Severity = Severity.ERR
) -> list[str]:
    code = verification.exit_code(fail_on)
    answer = ANSWERS.get(code, "unknown (could not tell)")
    lines = [
        f"contract {contract} (recorded on codex-cli {verification.recorded_on}) on codex-cli "
        f"{verification.version}: {answer}"
    ]
    if lacking := verification.lacking():
        lines.append(
            f"  codex-cli {verification.version} lacks {len(lacking)} method(s) the contract "
            f"uses: {', '.join(lacking)} (method-removed)"
        )
    if verification.problem:
        lines.append(f"  {verification.problem}")
    for checked in verification.checked:
        shown = [f for f in checked.found if f.severity > Severity.INFO]
        info = len(checked.found) - len(shown)
        said = "ok" if not shown and not checked.unknown else ""
        if checked.unknown:
            said = checked.unknown
        if info:
            said += ("; " if said else "") + f"{info} INFO"
        lines.append(f"  {checked.name}: {said}".rstrip(": "))
        lines += [f"    {f.severity.name:4} {f.text()}" for f in shown]
    counts = {
        s: sum(c.severity is s for k in verification.checked for c in k.found) for s in Severity
    }
    told = ", ".join(f"{counts[s]} {s.name}" for s in sorted(Severity, reverse=True))
    lines.append(f"{len(verification.checked)} interaction(s); rules met: {told}")
    return lines
