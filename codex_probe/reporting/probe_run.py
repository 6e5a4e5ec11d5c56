"""Run `codex-probe probe` as a subprocess for the gate, under a deadline.

The probe run rewrites its --out folder (verdict.json and allure-results) for the
versions it is given, so the gate gives it every version it judges in one run: the
verdict it then reads and the report uploaded beside it describe the same run.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from codex_probe.harness.jsonrpc.process import end_process_group
from codex_probe.harness.parent_death import bound_to_this_process

PROBE_TIMEOUT = 3600.0
# How this Python runs the codex-probe command, whether or not it is on PATH.
CODEX_PROBE = (sys.executable, "-m", "codex_probe.cli")


class ProbeRunTimeout(TimeoutError):
    """The probe run did not finish within its deadline and was ended."""


def probe_command(versions: Sequence[str], out_dir: Path) -> list[str]:
    command = [*CODEX_PROBE, "probe"]
    for version in versions:
        command += ["--codex", version]
    return [*command, "--out", str(out_dir)]


def run_probes(command: Sequence[str], *, timeout: float = PROBE_TIMEOUT) -> int:
    """The command's exit code; its output goes to ours, so a long run shows its progress."""
    # Bound to this process: a gate killed outright takes its probe run (and so its codex) along.
    process = subprocess.Popen(
        bound_to_this_process(list(command)), stdin=subprocess.DEVNULL, start_new_session=True
    )
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ProbeRunTimeout(
            f"`{' '.join(command)}` did not finish within {timeout:.0f}s and was ended"
        ) from None
    finally:
        end_process_group(process, grace=10.0)
