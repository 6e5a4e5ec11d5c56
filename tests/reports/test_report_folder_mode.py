"""The html folder of a report gets the permissions the umask gives any new folder."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.reporting.allure_install import BINARY_RELATIVE
from codex_probe.reporting.allure_report import generate_html

# Stands in for `allure generate --config C --output DIR RESULTS`: writes DIR/index.html
# into the folder it is given, as Allure does.
FAKE_ALLURE = f"""#!{sys.executable}
import sys
from pathlib import Path
output = Path(sys.argv[sys.argv.index("--output") + 1])
(output / "index.html").write_text("<html>report</html>")
"""


@pytest.fixture
def fake_allure(tmp_path: Path) -> Installation:
    binary = tmp_path / "allure" / BINARY_RELATIVE
    binary.parent.mkdir(parents=True)
    binary.write_text(FAKE_ALLURE)
    binary.chmod(0o755)
    return Installation("3.0.0", tmp_path / "allure", BINARY_RELATIVE)


@pytest.fixture
def results(tmp_path: Path) -> Path:
    folder = tmp_path / "allure-results"
    folder.mkdir()
    (folder / "one-result.json").write_text(json.dumps({"name": "a finding"}))
    return folder


@pytest.fixture
def umask() -> Iterator[None]:
    """Restores this process's umask after a test that sets its own."""
    old = os.umask(0o022)
    os.umask(old)
    yield
    os.umask(old)


@pytest.mark.usefixtures("umask")
@pytest.mark.parametrize(
    ("mask", "mode"),
    [(0o022, 0o755), (0o027, 0o750), (0o077, 0o700)],
    ids=["umask-022", "umask-027", "umask-077"],
)
def test_the_html_folder_takes_the_umask_like_any_new_folder(
    fake_allure: Installation, results: Path, tmp_path: Path, mask: int, mode: int
) -> None:
    os.umask(mask)
    report = generate_html(fake_allure, results, tmp_path / "out" / "html")
    assert stat.S_IMODE(report.index.parent.stat().st_mode) == mode


@pytest.mark.usefixtures("umask")
def test_a_report_written_over_an_old_one_takes_the_umask_too(
    fake_allure: Installation, results: Path, tmp_path: Path
) -> None:
    os.umask(0o077)
    generate_html(fake_allure, results, tmp_path / "html")
    os.umask(0o022)
    report = generate_html(fake_allure, results, tmp_path / "html")
    assert stat.S_IMODE(report.index.parent.stat().st_mode) == 0o755
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".html")] == []
