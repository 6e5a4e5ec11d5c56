"""Every command's --out is checked the same way, before any work, creating nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from codex_probe.cli.commands.output import output_problem


def test_a_folder_that_can_take_the_files_is_no_problem_and_nothing_is_created(
    tmp_path: Path,
) -> None:
    assert output_problem(tmp_path / "new" / "deeper", "verdict.json") is None
    assert not (tmp_path / "new").exists()


def test_a_file_in_place_of_the_folder_is_named(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("")
    assert output_problem(tmp_path / "taken" / "sub") == (
        f"--out {tmp_path / 'taken' / 'sub'}: {tmp_path / 'taken'} is a file, not a folder"
    )


def test_a_folder_without_write_permission_is_read_only_even_for_root(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    assert output_problem(locked) == f"--out {locked} is a read-only folder"


def test_an_output_file_that_is_a_folder_is_named(tmp_path: Path) -> None:
    (tmp_path / "verdict.json").mkdir()
    assert output_problem(tmp_path, "verdict.json") == (
        f"--out {tmp_path}: {tmp_path / 'verdict.json'} is a folder, not a file"
    )


def test_probe_refuses_a_verdict_json_that_is_a_folder_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "verdict.json").mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "codex_probe.cli", "probe", "--out", str(tmp_path), "--no-fidelity"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == (
        f"codex-probe probe: --out {tmp_path}: {tmp_path / 'verdict.json'} is a folder, "
        "not a file\n"
    )
