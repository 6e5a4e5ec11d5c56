"""The report of a probe run links the release x finding grid of a history run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from codex_probe.reporting.history_link import (
    LINK_NAME,
    find_history,
    link_results,
    summary_line,
)


def result_file(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}-result.json"
    path.write_text(json.dumps({"name": name, "links": [{"name": "spec", "url": "s"}]}))
    return path


def test_a_history_beside_or_above_the_report_folder_is_found(tmp_path: Path) -> None:
    out = tmp_path / "reports" / "0.171.0"
    out.mkdir(parents=True)
    assert find_history(out) is None
    page = tmp_path / "reports" / "history" / "history.html"
    page.parent.mkdir()
    page.write_text("<html>")
    assert find_history(out) == page
    inside = out / "history" / "history.html"
    inside.parent.mkdir()
    inside.write_text("<html>")
    assert find_history(out) == inside


def test_every_result_links_the_grid_once_relative_to_the_html_report(tmp_path: Path) -> None:
    results = tmp_path / "reports" / "0.171.0" / "allure-results"
    paths = [result_file(results, name) for name in ("a", "b")]
    page = tmp_path / "reports" / "history" / "history.html"
    report_dir = results.parent / "html"
    assert link_results(results, page, report_dir) == 2
    assert link_results(results, page, report_dir) == 2  # a second report adds no second link
    for path in paths:
        links = json.loads(path.read_text())["links"]
        assert links == [
            {"name": "spec", "url": "s"},
            {"type": "link", "name": LINK_NAME, "url": "../../history/history.html"},
        ]


def test_the_summary_line_links_the_grid_from_the_summary_folder(tmp_path: Path) -> None:
    line = summary_line(tmp_path / "history" / "history.html", tmp_path / "0.171.0")
    assert "(../history/history.html)" in line


def report_with_history(tmp_path: Path, given: Path) -> subprocess.CompletedProcess[str]:
    command = ["report", "--out", str(tmp_path), "--history", str(given)]
    return subprocess.run(
        [sys.executable, "-m", "codex_probe.cli", *command],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_history_folder_without_its_grid_is_a_usage_error(tmp_path: Path) -> None:
    done = report_with_history(tmp_path, tmp_path / "history")
    assert done.returncode == 2
    assert (
        done.stderr
        == f"codex-probe report: --history {tmp_path / 'history'}: no history.html there\n"
    )


def test_the_old_spelling_naming_the_page_still_works_and_says_it_is_deprecated(
    tmp_path: Path,
) -> None:
    done = report_with_history(tmp_path, tmp_path / "none.html")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "codex-probe report: --history FILE.html is deprecated; use --history DIR (the folder "
        "of history.html)",
        f"codex-probe report: --history {tmp_path / 'none.html'}: no none.html there",
    ]
