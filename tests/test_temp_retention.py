"""The suite keeps the temporary folders of failed tests only: two tests install codex
into theirs (about 424 MB each), and pytest's default keeps every test's folder of the
last three runs, about 1 GB."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TWO_TESTS = """
def test_that_passes(tmp_path):
    (tmp_path / "made").write_text("x")

def test_that_fails(tmp_path):
    (tmp_path / "made").write_text("x")
    assert False
"""


def test_a_passing_tests_temporary_folder_is_removed_and_a_failing_ones_kept(
    tmp_path: Path,
) -> None:
    (tmp_path / "test_two.py").write_text(TWO_TESTS)
    base = tmp_path / "base"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            str(REPO / "pyproject.toml"),
            "--rootdir",
            str(tmp_path),
            "--basetemp",
            str(base),
            "-p",
            "no:cacheprovider",
            "-q",
            "test_two.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    # Folders only: pytest's `...current` link to the newest folder of a name may stay.
    folders = sorted(p.name for p in base.iterdir() if not p.is_symlink())
    assert folders == ["test_that_fails0"]
    assert (base / "test_that_fails0" / "made").is_file()
