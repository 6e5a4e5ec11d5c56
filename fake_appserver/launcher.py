"""A drop-in `codex` executable for the fake: a tiny script that runs fake-codex.

Programs that spawn `BINARY app-server ...` get the fake with a chosen profile and
script by being given this file as BINARY, without knowing the difference.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path


def write_launcher(folder: Path, *, profile: str, script: Path | None = None) -> Path:
    """Write `folder/codex` that execs the fake with `profile` (and `script`)."""
    folder.mkdir(parents=True, exist_ok=True)
    options = ["--profile", profile]
    if script is not None:
        options += ["--script", str(script.resolve())]
    command = shlex.join([sys.executable, "-m", "fake_appserver", *options])
    launcher = folder / "codex"
    # Written aside and renamed: another process may be running the launcher right now.
    staging = folder / f".codex.{os.getpid()}"
    staging.write_text(f'#!/bin/sh\nexec {command} "$@"\n', encoding="utf-8")
    staging.chmod(0o755)
    os.replace(staging, launcher)
    return launcher
