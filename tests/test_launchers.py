"""Fake launchers live as long as the process that wrote them (rig/launchers.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.rig.launchers import LAUNCHERS, STALE_AFTER_S, remove_stale

ROOT = Path(__file__).resolve().parents[1]
DAY_S = 24 * 3600


def run_python(program: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-c", program],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


def test_a_process_s_launcher_folder_is_removed_when_it_exits(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    printed = run_python(
        "from codex_probe.rig.launchers import launcher_folder\n"
        "folder = launcher_folder()\n"
        "(folder / 'codex').write_text('#!/bin/sh\\n')\n"
        "assert launcher_folder() == folder\n"
        "print(folder)",
        env={"CODEX_PROBE_CACHE": str(cache)},
    )
    folder = Path(printed)
    assert folder.parent == cache / LAUNCHERS
    assert not folder.exists()
    assert list((cache / LAUNCHERS).iterdir()) == []


@pytest.mark.real
def test_a_fake_backend_s_launcher_with_a_script_is_gone_after_its_process(
    tmp_path: Path, default_codex: Installation
) -> None:
    script = tmp_path / "script.jsonl"
    script.write_text("", encoding="utf-8")
    printed = run_python(
        "from pathlib import Path\n"
        "from codex_probe.rig.backends import make_backend\n"
        f"backend = make_backend('fake', {DEFAULT_CODEX_VERSION!r}, script=Path({str(script)!r}))\n"
        "assert backend.binary.is_file()\n"
        "print(backend.binary)"
    )
    assert not Path(printed).exists()


def test_a_cache_emptied_while_a_process_runs_gets_its_launcher_folder_back(
    tmp_path: Path,
) -> None:
    printed = run_python(
        "import shutil\n"
        "from codex_probe.rig.launchers import launcher_folder\n"
        "folder = launcher_folder()\n"
        "shutil.rmtree(folder.parent.parent)\n"
        "assert launcher_folder() == folder and folder.is_dir()\n"
        "print('made again')",
        env={"CODEX_PROBE_CACHE": str(tmp_path / "cache")},
    )
    assert printed == "made again"


def test_folders_untouched_for_a_week_go_and_the_others_stay(tmp_path: Path) -> None:
    now = time.time()
    ages = {
        "4242-killed": STALE_AFTER_S + DAY_S,  # a killed process's
        "0.171.0-0123456789ab": 30 * DAY_S,  # the layout that kept launchers for good
        "4343-running": DAY_S,
        "4444-just-made": 0,
    }
    for name, age in ages.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "codex").write_text("#!/bin/sh\n")
        os.utime(tmp_path / name, (now - age, now - age))
    remove_stale(tmp_path, now=now)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["4343-running", "4444-just-made"]
