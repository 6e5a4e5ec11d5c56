"""`report` on the folder of a probe run that did not end says so (exit 3), and a folder
whose summary.md is a folder is a usage error in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codex_probe.cli.main import main
from codex_probe.probes.domain.verdict_file import VerdictReport

USAGE_ERROR, NO_VERDICT = 2, 3


def run_folder(tmp_path: Path, *, complete: bool) -> Path:
    """A probe run's folder: one Allure result, and the verdict.json a run leaves when it
    is killed before its end (complete: false, every finding missing)."""
    out = tmp_path / "run"
    (out / "allure-results").mkdir(parents=True)
    (out / "allure-results" / "a-result.json").write_text(
        json.dumps({"uuid": "a", "name": "a finding", "status": "passed"})
    )
    report = VerdictReport(complete=complete, missing=() if complete else ("0.162.0:x",))
    (out / "verdict.json").write_text(json.dumps(report.to_json()))
    return out


def test_report_on_a_run_killed_before_its_end_says_the_verdict_is_incomplete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run_folder(tmp_path, complete=False)
    code = main(["report", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == NO_VERDICT, err
    assert err == (
        f"codex-probe report: {out / 'verdict.json'} is incomplete: the probe run ended "
        "before 1 finding(s) were judged; no verdict\n"
    )
    assert (out / "html" / "index.html").is_file()


def test_report_where_summary_md_is_a_folder_is_a_usage_error_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run_folder(tmp_path, complete=True)
    (out / "summary.md").mkdir()
    code = main(["report", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == USAGE_ERROR, err
    assert err == f"codex-probe report: --out {out}: {out / 'summary.md'} is a folder, not a file\n"
