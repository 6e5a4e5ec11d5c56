"""A failed check's one-line reason, as the results file and the summary carry it."""

from __future__ import annotations

import pytest

from codex_probe.conformance.outcomes import failure_of
from codex_probe.harness.jsonrpc.errors import ServerExited


def failed_report(text: str) -> pytest.TestReport:
    return pytest.TestReport(
        nodeid="suite.py::check",
        location=("suite.py", 0, "check"),
        keywords={},
        outcome="failed",
        longrepr=text,
        when="call",
    )


def test_a_group_of_distinct_failures_names_each_failure_on_a_line_of_its_own() -> None:
    crash = ServerExited(
        method="thread/compact/start", request_id=3, returncode=71, stderr_tail="crashing"
    )
    group = ExceptionGroup(
        "Hypothesis found 2 distinct failures.",
        [crash, AssertionError("status active, expected idle\nmore")],
    )
    lines = failure_of(failed_report("the whole report"), group).splitlines()
    assert lines[0].startswith("Hypothesis found 2 distinct failures.")
    assert lines[1].startswith("codex_probe.harness.jsonrpc.errors.ServerExited: server exited")
    assert "exit code 71" in lines[1]
    assert lines[2] == "builtins.AssertionError: status active, expected idle"
    assert len(lines) == 3


def test_a_single_failure_without_a_crash_line_is_reported_by_its_whole_text() -> None:
    assert failure_of(failed_report("the whole report"), ValueError("x")) == "the whole report"
