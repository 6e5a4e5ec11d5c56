"""Two writers of one history folder never lose each other's releases: a history run holds
the folder for the run (a second one is refused in one line), and history.json is written
by reading, merging and writing."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from codex_probe.cli import main as cli
from codex_probe.cli.commands import can_i_upgrade
from codex_probe.probes.releases.history import (
    HistoryInUse,
    load_history,
    new_history,
    save_history,
    writing_history,
)
from tests.cli import codex_probe
from tests.site.recorded import AFTER, BEFORE, MOVED, write_history

USAGE_ERROR = 2
ENTRY = {"findings": {"start-applies-instructions": {"verdict": "holds", "required": True}}}


def test_a_history_run_into_a_folder_another_run_writes_is_refused_in_one_line(
    tmp_path: Path,
) -> None:
    out = tmp_path / "history"
    out.mkdir()
    (out / "history.json").write_text(json.dumps({"releases": {"0.161.0": ENTRY}}))
    before = (out / "history.json").read_text()
    with writing_history(out):
        done = codex_probe("history", "--from", "0.162.0", "--to", "0.162.0", "--out", str(out))
    assert done.returncode == USAGE_ERROR, done.stderr
    assert done.stderr == (
        f"codex-probe history: {out} is in use: another run is writing its history; wait "
        "for it to end or give another folder\n"
    )
    assert (out / "history.json").read_text() == before


def test_a_second_writer_of_a_folder_is_refused_until_the_first_one_ends(tmp_path: Path) -> None:
    with writing_history(tmp_path), pytest.raises(HistoryInUse), writing_history(tmp_path):
        pass
    with writing_history(tmp_path):  # free again
        pass


def test_two_writers_that_read_the_same_file_keep_both_releases(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    save_history(path, new_history())
    first, second = load_history(path), load_history(path)
    first["releases"]["0.161.0"] = ENTRY
    save_history(path, first)
    second["releases"]["0.162.0"] = ENTRY
    save_history(path, second)
    assert sorted(load_history(path)["releases"]) == ["0.161.0", "0.162.0"]


def test_a_release_another_process_wrote_between_two_saves_of_one_run_is_kept(
    tmp_path: Path,
) -> None:
    # A run does not read back a file it wrote itself and nobody changed since; a file
    # another process wrote (here: written as it would, outside this process's saves) is.
    path = tmp_path / "history.json"
    document = new_history()
    document["releases"]["0.161.0"] = ENTRY
    save_history(path, document)
    theirs = json.loads(path.read_text())
    theirs["releases"]["0.162.0"] = ENTRY
    path.write_text(json.dumps(theirs, indent=2) + "\n")
    document["releases"]["0.163.0"] = ENTRY
    save_history(path, document)
    assert sorted(load_history(path)["releases"]) == ["0.161.0", "0.162.0", "0.163.0"]


def test_can_i_upgrade_no_run_answers_from_a_history_folder_it_may_only_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_history(tmp_path / "history")
    monkeypatch.setattr(can_i_upgrade, "published_range", lambda a, b: [BEFORE, MOVED, AFTER])
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)
    try:
        code = cli.main(
            ["can-i-upgrade", "--from", BEFORE, "--to", AFTER, "--no-run", "--history", str(folder)]
        )
    finally:
        folder.chmod(0o755)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.startswith(f"can I upgrade codex-cli {BEFORE} -> {AFTER}? yes")
    assert not (folder / ".history.lock").exists()
    assert os.access(folder, os.R_OK)
