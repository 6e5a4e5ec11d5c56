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


@pytest.mark.parametrize("after_s", [1.0, 4.0])
def test_interrupting_the_lifecycle_check_prints_no_traceback_and_no_replay_line(
    after_s: float, default_codex: Installation
) -> None:
    command = [
        sys.executable, "-m", "pytest", "codex_probe/conformance", "--codex-backend", "fake",
        "--codex-version", default_codex.version, "--codex-check", "CONF-LIFECYCLE-001",
        "-p", "no:cacheprovider", "-q",
    ]  # fmt: skip
    process = subprocess.Popen(
        interruptible(command), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not children(process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)  # a fake app-server is up: the check is running
        time.sleep(after_s)
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == pytest.ExitCode.INTERRUPTED, output[-3000:]
    for noise in ("Reproduce with:", "Traceback", "Event loop is closed", "Exception ignored"):
        assert noise not in output, output[-3000:]
