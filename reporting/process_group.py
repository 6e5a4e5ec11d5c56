"""Ending a child started in its own session: its whole process group, politely first."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from typing import Any


def end_process_group(process: subprocess.Popen[Any], *, grace: float) -> None:
    """SIGTERM, then SIGKILL, the child's process group; helpers that outlived it too."""
    if process.poll() is None:
        _signal_group(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            _signal_group(process.pid, signal.SIGKILL)
            process.wait(timeout=grace)
    # Anything still in the group (browser helpers, codex, fakes) must not outlive it.
    _signal_group(process.pid, signal.SIGKILL)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)
