"""Run `codex-probe probe` as a subprocess for the gate, under a deadline.

The probe run rewrites its --out folder (verdict.json and allure-results) for the
versions it is given, so the gate gives it every version it judges in one run: the
verdict it then reads and the report uploaded beside it describe the same run.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

PROBE_TIMEOUT = 3600.0
# How this Python runs the codex-probe command, whether or not it is on PATH.
CODEX_PROBE = (sys.executable, "-m", "probes.cli")


class ProbeRunTimeout(TimeoutError):
    """The probe run did not finish within its deadline and was ended."""


def probe_command(versions: Sequence[str], out_dir: Path) -> list[str]:
    command = [*CODEX_PROBE, "probe"]
    for version in versions:
        command += ["--codex", version]
    return [*command, "--out", str(out_dir)]


def run_probes(command: Sequence[str], *, timeout: float = PROBE_TIMEOUT) -> int:
    """The command's exit code; its output goes to ours, so a long run shows its progress."""
    process = subprocess.Popen(list(command), stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ProbeRunTimeout(
            f"`{' '.join(command)}` did not finish within {timeout:.0f}s and was ended"
        ) from None
    finally:
        _end_group(process)


def _end_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL, the run's process group: pytest, codex, fakes, wiretaps."""
    if process.poll() is None:
        _signal_group(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10.0)
        except subprocess.TimeoutExpired:
            _signal_group(process.pid, signal.SIGKILL)
            process.wait(timeout=10.0)
    _signal_group(process.pid, signal.SIGKILL)  # anything that outlived the leader


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)
