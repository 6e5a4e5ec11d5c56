"""The release gate: from findings, a baseline and --strict, one exit code and its reasons.

    0  every required assumption holds (or changed exactly as the baseline accepts)
    1  a required assumption changed upstream, a baseline entry is stale, or, under
       --strict, an informative assumption changed
    3  a probe could not give a verdict: a required one is broken or has no finding
       for a requested version (under --strict, an informative broken one too)

1 wins over 3: a known failure is news even when another probe could not measure.
(2, a usage error, is the command's: an unreadable verdict or baseline file.)

Findings of the fake-versus-real comparison judge our fake, not codex: they are
reported here and never decide the exit code.

The protocol surface of a version is compared with a base release's (the default codex-cli
unless told otherwise); each change carries its breaking-change rule and severity, and
every ERR change is named. Under `--surface`, a change the reference driver would feel that
the baseline does not accept (`kind = "surface"`, its `ASPECT KEY` as id) is 1; under
`--surface-fail-on SEVERITY`, so is any change of that severity or above (whoever feels
it); under either, a surface that could not be compared is 3, and a stale surface entry
is 1. Without them, the changes are reported and decide nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX, Finding
from codex_probe.probes.domain.surface.delta import delta
from codex_probe.probes.domain.surface.diff import SurfaceChange, diff_command
from codex_probe.probes.domain.surface.rules import Severity
from codex_probe.probes.domain.tally import tally
from codex_probe.probes.domain.verdict_file import VerdictReport
from codex_probe.reporting.baseline import AcceptedChange, AcceptedChanges

PASS = 0
FAIL = 1
USAGE = 2
NO_VERDICT = 3

MEANING = {
    PASS: "every required assumption holds",
    FAIL: "a required assumption changed upstream or a baseline entry is stale",
    USAGE: "usage error",
    NO_VERDICT: "a probe could not give a verdict",
}
STRICT_MEANING = {
    FAIL: "an assumption changed upstream (--strict) or a baseline entry is stale",
}
SURFACE_MEANING = {
    FAIL: "a required assumption or a surface the driver touches changed upstream, "
    "or a baseline entry is stale",
}
TAG = {PASS: "ok", FAIL: "FAIL", NO_VERDICT: "NO VERDICT"}
DECISION_WORDS = {PASS: "passes", FAIL: "fails", NO_VERDICT: "no verdict"}


@dataclass(frozen=True)
class Reason:
    code: int  # the exit code this line asks for; PASS for lines that only inform
    version: str
    text: str

    def __str__(self) -> str:
        tag = TAG.get(self.code, str(self.code)) if self.code != PASS else "note"
        return f"[{tag}] codex {self.version}: {self.text}"


@dataclass(frozen=True)
class SurfaceComparison:
    """A version's surface against the base release's: the changes, or why there are none."""

    base: str
    changes: tuple[SurfaceChange, ...] = ()
    problem: str | None = None  # why the surfaces could not be compared


@dataclass
class GateResult:
    strict: bool
    reasons: list[Reason] = field(default_factory=list)
    surface: bool = False

    @property
    def exit_code(self) -> int:
        codes = {reason.code for reason in self.reasons}
        if FAIL in codes:
            return FAIL
        if NO_VERDICT in codes:
            return NO_VERDICT
        return PASS

    @property
    def meaning(self) -> str:
        code = self.exit_code
        if self.strict and code in STRICT_MEANING:
            return STRICT_MEANING[code]
        if self.surface and code in SURFACE_MEANING:
            return SURFACE_MEANING[code]
        return MEANING[code]

    @property
    def decision(self) -> str:
        """The gate's decision in one line, as its last line says it."""
        return f"gate: exit {self.exit_code}: {self.meaning}"

    @property
    def word(self) -> str:
        """The decision in a word: passes, fails, or no verdict."""
        return DECISION_WORDS.get(self.exit_code, str(self.exit_code))

    def lines(self) -> list[str]:
        return [*map(str, self.reasons), self.decision]

    def to_json(self) -> dict[str, Any]:
        """What `codex-probe gate --json` prints: the decision and every reason's line."""
        return {
            "exit_code": self.exit_code,
            "decision": self.word,
            "meaning": self.meaning,
            "strict": self.strict,
            "surface": self.surface,
            "reasons": [
                {"code": r.code, "tag": TAG.get(r.code, "note") if r.code else "note"}
                | {"version": r.version, "text": r.text}
                for r in self.reasons
            ],
        }


def evaluate(
    report: VerdictReport,
    versions: list[str],
    *,
    baseline: AcceptedChanges | None = None,
    strict: bool = False,
    required_ids: set[str] | None = None,
) -> GateResult:
    """Judge every requested version; `required_ids` names ids a version must have."""
    result = GateResult(strict=strict)
    required = (required_ids or set()) | report.required_assumptions()
    for version in versions:
        if not report.complete:
            # An interrupted run's verdict is no verdict, however much of it holds.
            absent = [m.split(":", 1)[1] for m in report.missing if m.startswith(f"{version}:")]
            shown = ", ".join(absent[:5]) + (" ..." if len(absent) > 5 else "")
            result.reasons.append(
                Reason(
                    NO_VERDICT,
                    version,
                    "the verdict file is incomplete (the probe run ended early)"
                    + (f": {len(absent)} finding(s) did not run: {shown}" if absent else ""),
                )
            )
        accepted = (baseline or AcceptedChanges()).for_version(version)
        findings = report.findings.get(version)
        if findings is None:
            result.reasons.append(Reason(NO_VERDICT, version, "no findings for this version"))
            _stale_for_absent(result, version, accepted.values())
            continue
        for assumption, finding in findings.items():
            entry = accepted.pop(assumption, None)
            result.reasons.extend(_judge(finding, entry, strict))
        for assumption in sorted(required - set(findings)):
            missing = f"{assumption} (required): no finding; the probe did not run"
            result.reasons.append(Reason(NO_VERDICT, version, missing))
        _stale_for_absent(result, version, accepted.values())
        result.reasons.append(Reason(PASS, version, _tally(findings)))
    return result


def evaluate_surface(
    result: GateResult,
    comparisons: dict[str, SurfaceComparison | None],
    *,
    baseline: AcceptedChanges | None = None,
    gate: bool = False,
    fail_on: Severity | None = None,
) -> None:
    """Add the surface's reasons per version to `result` (None: the version is the base).
    `gate`: a change the driver would feel fails; `fail_on`: a change of that severity or
    above fails too."""
    driver_gate = gate
    gate = result.surface = gate or fail_on is not None
    for version, comparison in comparisons.items():
        accepted = (baseline or AcceptedChanges()).surface_for_version(version)
        if comparison is None:
            result.reasons.append(Reason(PASS, version, "surface: the base of the comparison"))
            _stale_surface(result, version, accepted.values(), gate, compared=False)
            continue
        if comparison.problem is not None:
            code = NO_VERDICT if gate else PASS
            text = f"surface not compared with {comparison.base}: {comparison.problem}"
            result.reasons.append(Reason(code, version, text))
            _stale_surface(result, version, accepted.values(), gate, compared=False)
            continue
        result.reasons.extend(_surface_reasons(version, comparison, accepted, driver_gate, fail_on))
        _stale_surface(result, version, accepted.values(), gate, compared=True)


def _surface_reasons(
    version: str,
    comparison: SurfaceComparison,
    accepted: dict[str, AcceptedChange],
    driver_gate: bool,
    fail_on: Severity | None,
) -> list[Reason]:
    """A line per change the driver would feel or of ERR severity (or of --surface-fail-on's
    and above), failing where gated; one line counting them all."""
    reasons = []
    others = 0
    reproduce = diff_command(comparison.base, version)
    for change in comparison.changes:
        entry = accepted.pop(change.name, None)
        ruled = f"{change.severity.name} {change.rule}"
        by_severity = fail_on is not None and change.severity >= fail_on
        if entry is not None:
            text = (
                f"surface {change.name}: {ruled}: changed, accepted by the baseline: {entry.reason}"
            )
            reasons.append(Reason(PASS, version, text))
        elif change.driver_relevant or by_severity or change.severity is Severity.ERR:
            told = "; ".join(delta(change.before, change.after, 3))
            gated = (driver_gate and change.driver_relevant) or by_severity
            felt = ", and the reference driver touches it" if change.driver_relevant else ""
            if gated:
                suffix = ""
            elif change.driver_relevant:
                suffix = " (gated only with --surface)"
            else:
                suffix = f" (gated only with --surface-fail-on {change.severity.name})"
            text = (
                f"surface {change.name}: {ruled}: changed since {comparison.base}{felt}"
                f"{suffix}: {_one_line(told)} Reproduce with: {reproduce}"
            )
            reasons.append(Reason(FAIL if gated else PASS, version, text))
            others += not change.driver_relevant and not gated
        else:
            others += 1
    relevant = sum(c.driver_relevant for c in comparison.changes)
    severities = ", ".join(
        f"{sum(c.severity is s for c in comparison.changes)} {s.name}"
        for s in sorted(Severity, reverse=True)
    )
    reasons.append(
        Reason(
            PASS,
            version,
            f"surface against {comparison.base}: {len(comparison.changes)} change(s), "
            f"{relevant} the driver would feel, {others} other(s) not gated; {severities} "
            f"({reproduce})",
        )
    )
    return reasons


def _stale_surface(
    result: GateResult,
    version: str,
    entries: Iterable[AcceptedChange],
    gate: bool,
    *,
    compared: bool,
) -> None:
    for entry in entries:
        if not compared:
            text = f"surface {entry.assumption}: baseline entry not checked (no comparison)"
            result.reasons.append(Reason(PASS, version, text))
            continue
        text = (
            f"surface {entry.assumption}: stale baseline entry: the surface no longer differs "
            f"there ({entry.reason})"
        )
        result.reasons.append(Reason(FAIL if gate else PASS, version, text))


def _judge(finding: Finding, entry: AcceptedChange | None, strict: bool) -> list[Reason]:
    version, name = finding.version, _name(finding)
    if finding.id.startswith(FIDELITY_ID_PREFIX):
        return _fidelity_note(finding)
    reasons = []
    if entry is not None:
        if finding.verdict == entry.verdict:
            accepted = f"{name}: {finding.verdict}, accepted by the baseline: {entry.reason}"
            return [Reason(PASS, version, accepted)]
        stale = (
            f"{name}: stale baseline entry: it expects {entry.verdict}, the probe says "
            f"{finding.verdict} (entry's reason: {entry.reason})"
        )
        reasons.append(Reason(FAIL, version, stale))
    if finding.verdict != "holds":
        reasons.append(_not_holding(finding, strict))
    return reasons


def _not_holding(finding: Finding, strict: bool) -> Reason:
    gated = finding.required or strict
    if finding.verdict == "changed":
        code, what = FAIL, "assumption changed upstream"
    elif finding.verdict == "unsupported":
        # The release cannot even run what the design relies on: a change, not a doubt.
        code, what = FAIL, "unsupported by this release (it lacks a method the design uses)"
    else:
        code, what = NO_VERDICT, "the probe could not give a verdict (broken)"
    suffix = "" if gated else "; informative, gated only with --strict"
    evidence = f" Evidence: {_one_line(finding.evidence[0])}" if finding.evidence else ""
    text = f"{_name(finding)}: {what}{suffix}.{evidence} Reproduce with: {finding.reproduce}"
    return Reason(code if gated else PASS, finding.version, text)


def _fidelity_note(finding: Finding) -> list[Reason]:
    if finding.verdict == "holds":
        return []
    text = (
        f"{_name(finding)}: fake diverges from real ({finding.verdict}); not gated. "
        f"Reproduce with: {finding.reproduce}"
    )
    return [Reason(PASS, finding.version, text)]


def _stale_for_absent(result: GateResult, version: str, entries: Iterable[AcceptedChange]) -> None:
    for entry in entries:
        stale = f"{entry.assumption}: stale baseline entry: no finding for it ({entry.reason})"
        result.reasons.append(Reason(FAIL, version, stale))


def _name(finding: Finding) -> str:
    kind = "required" if finding.required else "informative"
    section = f", spec {finding.spec_section}" if finding.spec_section else ""
    return f"{finding.id} ({kind}{section})"


def _tally(findings: dict[str, Finding]) -> str:
    return tally((f.id, f.verdict.value, f.required) for f in findings.values())


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
