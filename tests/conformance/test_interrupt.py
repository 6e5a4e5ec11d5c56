"""Ctrl-C in the middle of the conformance suite ends it quietly: no replay line, no noise."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codex_probe.harness.codex.install import Installation
from tests.child_processes import interruptible
from tests.probes.test_probe_run import children

pytestmark = pytest.mark.real  # the fake reads its schema from the installed release
ROOT = Path(__file__).resolve().parents[2]
# How long a step may take on a machine at a load average of 40 (a pytest start included).
LOADED_S = 600.0


@pytest.mark.parametrize("after_s", [1.0, 4.0])
def test_interrupting_the_lifecycle_check_prints_no_traceback_and_no_replay_line(
    after_s: float, default_codex: Installation
) -> None:
    # An interrupt that lands while Python's import machinery has a source file open (a
    # module imported late, seen under load: harness/codex/in_use.py) leaves that file to
    # the garbage collector; this project's `filterwarnings = error` turns its
    # ResourceWarning into exit 1. A user's run does not make warnings errors: nor does this.
    command = [
        sys.executable, "-m", "pytest", "codex_probe/conformance", "--codex-backend", "fake",
        "--codex-version", default_codex.version, "--codex-check", "CONF-LIFECYCLE-001",
        "-p", "no:cacheprovider", "-q", "-W", "ignore::ResourceWarning",
    ]  # fmt: skip
    process = subprocess.Popen(
        interruptible(command), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    try:
        # Deadlines of a loaded machine (CI runners are shared): a slow start waits longer,
        # and the moment of the interrupt counts from the event (a fake app-server is up).
        deadline = time.monotonic() + LOADED_S
        while not children(process.pid):
            assert time.monotonic() < deadline, "no fake app-server started"
            assert process.poll() is None, process.communicate()[0][-3000:]
            time.sleep(0.05)  # /proc gives no event: a fake app-server is up, the check runs
        time.sleep(after_s)
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=LOADED_S)
    finally:
        process.kill()
    assert process.returncode == pytest.ExitCode.INTERRUPTED, shown(output)
    for noise in ("Reproduce with:", "Traceback", "Event loop is closed", "Exception ignored"):
        assert noise not in output, shown(output)


def shown(output: str) -> str:
    """The output's start and end: a failure's first exception is at the start, the run's
    summary at the end (1 run of 2,157 tests beside two other test runs, 2026-12-07: exit 1,
    a Hypothesis FlakyStrategyDefinition at the end, its cause cut off)."""
    if len(output) <= 8000:
        return output
    return f"{output[:5000]}\n[... {len(output) - 8000} characters ...]\n{output[-3000:]}"
