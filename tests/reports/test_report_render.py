"""`codex-probe report`: the pinned Allure 3 makes one HTML page, and Chromium renders it.

Needs npm (Allure is installed into the cache once) and Debian's `chromium`.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codex_probe.reporting.allure_report import ANALYTICS_HOST
from codex_probe.reporting.browser import SCREENSHOT_SIZE, dump_dom, loopback_host
from codex_probe.reporting.finding_results import GROUPS, group_of, rank
from codex_probe.reporting.history_link import LINK_NAME
from tests.cli import codex_probe as run_codex_probe
from tests.once import made_once
from tests.reports.conftest import DATA, probe_findings


def codex_probe(*args: str) -> subprocess.CompletedProcess[str]:
    return run_codex_probe(*args, timeout=600)


@pytest.fixture(scope="module")
def report_dir(probe_like_results: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    def report(out: Path) -> None:
        shutil.copytree(probe_like_results, out / "allure-results")
        shutil.copy(DATA / "verdict.json", out / "verdict.json")
        (out / "history").mkdir()
        (out / "history" / "history.html").write_text("<html>the grid</html>")
        done = codex_probe("report", "--out", str(out), "--screenshot", str(out / "report.png"))
        assert done.returncode == 0, done.stderr
        assert re.search(
            r"report: .*index\.html \(6 results, allure 3\.\d+\.\d+, \d+\.\ds\)", done.stdout
        ), done.stdout

    return made_once(tmp_path_factory, "report", report)


def rendered_text(url: str, *showing: str) -> str:
    """The visible text of the page at `url` once it shows every one of `showing` (dumped
    again until it does, within the browser's deadline; the last dump otherwise)."""

    def drawn(dom: str) -> bool:
        return 'id="app"' in dom and all(part in visible_text(dom) for part in showing)

    return visible_text(dump_dom(url, until=drawn))


def visible_text(dom: str) -> str:
    """The text a person sees in the app's root: no scripts, styles or markup."""
    app = dom.split('id="app"', 1)[1]
    app = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", app, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", app).split())


def test_report_writes_one_self_contained_page_and_the_summary(report_dir: Path) -> None:
    assert (report_dir / "html" / "index.html").is_file()
    assert (report_dir / "summary.md").read_text().startswith("# codex-probe")
    # Single-file mode: no data folder to fetch, so the page also works from disk.
    assert not (report_dir / "html" / "data").exists()
    assert not list(report_dir.glob(".html*"))  # no staging folder left behind


def test_the_html_folder_allure_filled_takes_the_umask_like_any_new_folder(
    report_dir: Path,
) -> None:
    mask = os.umask(0o022)  # reading the umask means setting it: put it straight back
    os.umask(mask)
    assert stat.S_IMODE((report_dir / "html").stat().st_mode) == 0o777 & ~mask


def test_the_report_and_the_summary_link_the_history_grid_beside_them(report_dir: Path) -> None:
    assert (
        "[release x finding grid](history/history.html)" in (report_dir / "summary.md").read_text()
    )
    results = embedded_test_results(report_dir / "html" / "index.html")
    assert results and all(
        {"name": LINK_NAME, "url": "../history/history.html"}.items() <= link.items()
        for result in results
        for link in [next(k for k in result["links"] if k["name"] == LINK_NAME)]
    )


def embedded_test_results(page: Path) -> list[dict[str, Any]]:
    """The test results a single-file Allure page carries (base64 data files)."""
    files = re.findall(r'd\("(data/test-results/[^"]+)","([A-Za-z0-9+/=]+)"\)', page.read_text())
    return [json.loads(base64.b64decode(blob)) for _, blob in files]


def test_the_page_shows_first_what_fails_the_gate_then_what_only_changed_then_what_broke(
    report_dir: Path,
) -> None:
    groups = [
        "Changed upstream: gated (required)",
        "Changed upstream: informative (not gated)",
        "Harness broken: no verdict",
        "Holds",
        "Fake versus real (our fake, not codex)",
    ]
    text = rendered_text((report_dir / "html" / "index.html").as_uri(), *groups)
    where = [text.find(group) for group in groups]
    assert -1 not in where and where == sorted(where), (where, text[:3000])
    # An informative change is neither a failure nor a pass: 2 failed (a gated change, the
    # fake), 2 broken, 1 passed (what holds), 1 unknown (the informative change).
    assert re.search(r"Failed 2 Broken 2 Passed 1 Unknown 1", text), text[:2000]
    assert "codex.versions" in text  # environment.properties made it into the page


def test_the_page_s_heading_says_what_the_gate_decides(report_dir: Path) -> None:
    text = rendered_text((report_dir / "html" / "index.html").as_uri(), "gate fails: exit 1")
    assert text.startswith(
        "> Report codex-cli 0.120.0, 0.171.0: gate fails (a required assumption changed "
        "upstream or a baseline entry is stale)"
    ), text[:300]
    assert "gate fails: exit 1" in text  # and the metadata says it again, with the exit code


def result_page_text(report_dir: Path, statement: str, *showing: str) -> str:
    """What a person sees on one result's page, served from 127.0.0.1 as a host serves it."""
    page = report_dir / "html" / "index.html"
    (result,) = [r for r in embedded_test_results(page) if r["name"] == statement]
    with loopback_host(page.parent) as base:
        return rendered_text(f"{base}/index.html#{result['id']}", statement, *showing)


def test_a_changed_finding_s_page_shows_both_values_and_that_the_gate_fails_on_it(
    report_dir: Path,
) -> None:
    text = result_page_text(
        report_dir,
        "the statement of compaction-keeps-instructions",
        "seen: expected true, observed false",
    )
    assert "Failed" in text and "Category: changed upstream: gated (required)" in text
    assert "verdict changed gated yes (required)" in text  # the parameters
    assert "seen: expected true, observed false" in text  # a step per value


def test_an_informative_change_s_page_is_neither_passed_nor_failed_and_says_why(
    report_dir: Path,
) -> None:
    text = result_page_text(
        report_dir, "the statement of resume-refresh-loaded", "seen: expected true, observed false"
    )
    assert "Unknown" in text and "Passed" not in text and "Failed" not in text
    assert "Category: changed upstream: informative (not gated)" in text
    assert "gated no (informative; --strict gates it)" in text
    assert "seen: expected true, observed false" in text


def test_each_result_is_titled_by_its_statement_in_the_spec_s_order() -> None:
    findings = sorted(probe_findings(), key=rank)
    groups = [group_of(finding) for finding in findings]
    assert groups == sorted(groups, key=GROUPS.index)
    broken = [f.spec_section for f in findings if group_of(f) == "Harness broken: no verdict"]
    assert broken == ["5.3", "5.3"]
    assert all(
        statement.startswith("the statement of ") for statement in (f.statement for f in findings)
    )


def test_the_categories_tab_sorts_failures_by_what_went_wrong(report_dir: Path) -> None:
    text = rendered_text(
        (report_dir / "html" / "index.html").as_uri() + "#categories", "fake diverges from real"
    )
    assert "changed upstream: gated (required) 1" in text, text[:2000]
    assert "changed upstream: informative (not gated) 1" in text
    assert "harness broken 2" in text
    assert "fake diverges from real 1" in text


DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_pictures_of_the_report_in_docs_are_whole_pages_as_chromium_renders_them() -> None:
    """docs/report.md shows the first page and an informative change's page: both taken
    with `screenshot` (the first with `codex-probe report --screenshot`), at its size."""
    for name in ("report.png", "report-finding.png"):
        picture = (DOCS / name).read_bytes()
        assert picture.startswith(b"\x89PNG\r\n\x1a\n"), name
        width, height = struct.unpack(">II", picture[16:24])
        assert (width, height) == SCREENSHOT_SIZE, name
        assert len(picture) > 50_000, name  # a rendered page, not a blank one


def test_the_page_calls_no_analytics_when_opened(report_dir: Path) -> None:
    assert ANALYTICS_HOST not in (report_dir / "html" / "index.html").read_text()


def test_the_screenshot_is_a_png_of_the_rendered_page(report_dir: Path) -> None:
    picture = (report_dir / "report.png").read_bytes()
    assert picture.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(picture) > 20_000  # a rendered page, not a blank one


def test_a_folder_without_results_is_an_error_that_says_what_to_run(tmp_path: Path) -> None:
    done = codex_probe("report", "--out", str(tmp_path))
    assert done.returncode == 1
    assert "holds no Allure results" in done.stderr
    assert "codex-probe probe --out DIR" in done.stderr
    assert not (tmp_path / "html").exists()


def test_an_unreadable_verdict_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "verdict.json").write_text("{")
    done = codex_probe("report", "--out", str(tmp_path))
    assert done.returncode == 2
    assert "not JSON" in done.stderr


def test_a_relative_out_folder_works_from_any_working_directory(
    probe_like_results: Path,
    tmp_path: Path,
) -> None:
    shutil.copytree(probe_like_results, tmp_path / "rel" / "allure-results")
    done = subprocess.run(
        [sys.executable, "-m", "codex_probe.cli", "report", "--out", "rel"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "rel" / "html" / "index.html").is_file()
