"""A check's report as the baseline judges it, and its outcome recorded for the summary.

The outcome travels on the report itself: pytest-xdist sends a worker's reports to the
main process with their attributes, so the outcomes are counted where they are shown,
whether the tests ran in this process or on workers.

A baselined failure becomes pytest's xfail, a stale entry turns a pass into a failure,
and every failed check names what it protects.
"""

from __future__ import annotations

import pytest

from codex_probe.conformance.marks import check_of
from codex_probe.conformance.registry import ConformanceCheck
from codex_probe.conformance.state import state_of
from codex_probe.conformance.target import Target, target_of


def settle(
    item: pytest.Item, report: pytest.TestReport, error: BaseException | None = None
) -> pytest.TestReport:
    """`report` rewritten as the baseline judges it (a check's call phase only), carrying its
    outcome for the summary; `error` is what the phase raised, if anything."""
    check, target = check_of(item), target_of(item)
    if check is None or target is None:
        return report
    from codex_probe.conformance.baseline import judge  # the rig's baseline format

    state = state_of(item.config)
    if report.when == "setup":
        report.user_properties.append(("conformance_check", check.id))
        report.user_properties.append(("protects", check.protects))
    if report.skipped:
        if report.when == "call" or report.when == "setup":
            record_outcome(report, check, target, "skipped", failure_of(report))
        return report
    if report.when == "call" or (report.when == "setup" and report.failed):
        if report.when == "call":
            entry = state.baseline.lookup(check.id, target.version, target.kind)
            judged = judge(entry, report.passed, report.longreprtext, target.kind)
            if judged.outcome == "expected failure":
                report.outcome = "skipped"
                report.wasxfail = judged.message
            elif judged.outcome == "failed" and report.passed:
                report.outcome = "failed"
                report.longrepr = judged.message
            elif judged.message:
                report.sections.append(("conformance baseline", judged.message))
            reason = failure_of(report, error) if report.failed else ""
            record_outcome(
                report,
                check,
                target,
                judged.outcome,
                "\n".join(filter(None, [judged.message, reason])),
            )
        else:
            record_outcome(report, check, target, "error", failure_of(report, error))
        if report.failed:
            report.sections.append(
                ("conformance check", f"{check.id}: {check.title}\nprotects: {check.protects}")
            )
    return report


def failure_of(report: pytest.TestReport, error: BaseException | None = None) -> str:
    """The one-line reason of a failed report (the exception line), else its whole text.
    A group (Hypothesis's distinct failures) names each of its failures, one per line:
    its own line, `found 2 distinct failures`, says nothing of what they were."""
    if isinstance(error, BaseExceptionGroup):
        return "\n".join([str(error), *(_one_line(inner) for inner in error.exceptions)])
    crash = getattr(report.longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    return message if isinstance(message, str) else report.longreprtext


def _one_line(error: BaseException) -> str:
    first = (str(error).strip().splitlines() or [""])[0]
    return f"{type(error).__module__}.{type(error).__qualname__}: {first}"


OUTCOME_ATTRIBUTE = "codex_conformance_outcome"


def record_outcome(
    report: pytest.TestReport,
    check: ConformanceCheck,
    target: Target,
    outcome: str,
    message: str,
) -> None:
    setattr(
        report,
        OUTCOME_ATTRIBUTE,
        {
            "check": check.id,
            "target": target.label,
            "backend": target.kind,
            "version": target.version,
            "outcome": outcome,
            "protects": check.protects,
            "message": message[:4000],
        },
    )


class OutcomeCollector:
    """Keeps each check's outcome as its report is logged: in the process that shows the
    run (with pytest-xdist, the main one, which gets the workers' reports). The run's state
    is made by the first outcome, if nothing made it before."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        entry = getattr(report, OUTCOME_ATTRIBUTE, None)
        if isinstance(entry, dict):
            state = state_of(self.config)
            state.used = True
            state.results.append(entry)
