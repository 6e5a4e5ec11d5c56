"""A Ctrl-C that lands in a finalizer still ends a conformance run as interrupted
(codex_probe/conformance/swallowed_interrupts.py)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.child_processes import interruptible

ROOT = Path(__file__).resolve().parents[2]
# How long a step may take on a loaded machine (a pytest start included).
LOADED_S = 300.0

# The first test's object announces its finalizer and spins in it until the Ctrl-C lands
# there: Python reports the KeyboardInterrupt as unraisable and the test goes on. The
# second test leaves a mark if it runs.
TESTS = """\
import os, pathlib, time

HERE = pathlib.Path(__file__).parent


class SpinsWhenFinalized:
    def __del__(self):
        (HERE / "in-finalizer").write_text("yes")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            pass


def test_finalized_while_interrupted():
    finalized = SpinsWhenFinalized()
    del finalized


def test_after():
    (HERE / "after-ran").write_text("yes")
"""

CONFTEST = """\
from codex_probe.conformance.swallowed_interrupts import SwallowedInterrupts


def pytest_configure(config):
    if {protected}:
        config.pluginmanager.register(SwallowedInterrupts(), "swallowed")
"""


def run_interrupted_in_a_finalizer(folder: Path, *, protected: bool) -> tuple[int, str]:
    (folder / "test_spin.py").write_text(TESTS)
    (folder / "conftest.py").write_text(CONFTEST.format(protected=protected))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:asyncio"]
    process = subprocess.Popen(
        interruptible([*command, str(folder)]),
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + LOADED_S
        while not (folder / "in-finalizer").exists():
            assert time.monotonic() < deadline, "the finalizer never ran"
            assert process.poll() is None, process.communicate()[0][-3000:]
            time.sleep(0.02)  # a file gives no event: the finalizer has started spinning
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=LOADED_S)
    finally:
        process.kill()
    return process.returncode, output


def test_a_ctrl_c_in_a_finalizer_ends_the_run_as_interrupted_before_the_next_check(
    tmp_path: Path,
) -> None:
    returncode, output = run_interrupted_in_a_finalizer(tmp_path, protected=True)
    assert returncode == pytest.ExitCode.INTERRUPTED, output[-3000:]
    assert not (tmp_path / "after-ran").exists(), output[-3000:]
    assert "Exception ignored" not in output, output[-3000:]


def test_without_it_python_swallows_the_ctrl_c_and_the_run_goes_on(tmp_path: Path) -> None:
    # What the plugin is for: the same run without it ignores the Ctrl-C and passes.
    returncode, output = run_interrupted_in_a_finalizer(tmp_path, protected=False)
    assert returncode == pytest.ExitCode.OK, output[-3000:]
    assert (tmp_path / "after-ran").exists()
    assert "Exception ignored" in output and "KeyboardInterrupt" in output, output[-3000:]


@pytest.mark.parametrize(
    ("arguments", "registered"),
    [
        (["codex_probe/conformance", "--codex-backend", "fake"], True),
        (["codex_probe/conformance/suites"], True),
        (["tests/test_once.py"], False),
    ],
    ids=["a --codex option", "the suites named", "another pytest run"],
)
def test_a_conformance_run_has_it_and_another_pytest_run_does_not(
    arguments: list[str], registered: bool
) -> None:
    command = [sys.executable, "-m", "pytest", *arguments, "--collect-only", "-q"]
    command += ["-p", "no:cacheprovider", "--trace-config"]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=LOADED_S, check=False
    )
    said = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.OK, said[-3000:]
    assert ("SwallowedInterrupts object" in said) is registered, said[-3000:]
