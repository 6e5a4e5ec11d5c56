"""What a nox session prints: its own lines, not nox's search for a uv no session uses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


def test_a_session_does_not_say_that_uv_is_missing() -> None:
    # --no-venv --no-install: the session runs on this interpreter (codex-probe is on its
    # PATH) with nothing installed, yet nox still looks for uv as it does for every session.
    bin_dir = Path(sys.executable).parent
    done = subprocess.run(
        [sys.executable, "-m", "nox", "--no-venv", "--no-install", "-s", "report", "--", "-h"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=REPOSITORY,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"},
    )
    assert done.returncode == 0, done.stderr
    assert "nox > Running session report" in done.stderr
    assert "uv binary not found" not in done.stderr + done.stdout
