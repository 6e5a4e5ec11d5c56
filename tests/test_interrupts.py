"""Ctrl-C, SIGTERM and SIGHUP end a command as a cancellation: one line, 128 + the signal."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import threading
from typing import Any

import pytest

from codex_probe.cli import main as cli_main
from codex_probe.harness import interrupts
from codex_probe.harness.interrupts import Interrupted, run_interruptible


def test_a_ctrl_c_while_a_command_loads_is_one_line_and_exit_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def loading(words: Any) -> Any:
        raise KeyboardInterrupt  # as a Ctrl-C lands while the command's modules import

    monkeypatch.setattr(cli_main, "build_parser", loading)
    assert cli_main.main(["probe"]) == 130
    err = capsys.readouterr().err
    assert err == "codex-probe probe: interrupted (SIGINT)\n"


@pytest.mark.parametrize("sent", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_cancel_the_work_and_say_which_signal(sent: signal.Signals) -> None:
    cleaned: list[str] = []

    async def work() -> None:
        threading.Timer(0.05, os.kill, (os.getpid(), sent)).start()
        try:
            await asyncio.sleep(30)
        finally:
            cleaned.append("ended")

    with pytest.raises(Interrupted) as raised:
        run_interruptible(work)
    assert raised.value.signal_number == sent and raised.value.exit_code == 128 + sent
    assert cleaned == ["ended"]
    assert signal.getsignal(sent) is not None  # the handler in place before is back


def test_a_signal_the_work_turns_into_an_error_of_its_own_still_interrupts_the_command() -> None:
    async def work() -> None:
        threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGTERM)).start()
        try:
            await asyncio.sleep(30)
        finally:
            raise RuntimeError("a process ended under the work")

    with pytest.raises(Interrupted) as raised:
        run_interruptible(work)
    assert raised.value.signal_number == signal.SIGTERM


def test_a_signal_the_work_swallows_still_interrupts_the_command() -> None:
    async def work() -> str:
        threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGTERM)).start()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            return "went on"
        return "slept"

    with pytest.raises(Interrupted) as raised:
        run_interruptible(work)
    assert raised.value.signal_number == signal.SIGTERM


def test_a_second_ctrl_c_during_cleanup_ends_every_app_server_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    killed: list[str] = []
    monkeypatch.setattr(interrupts, "kill_live_groups", lambda: killed.append("all"))

    async def work() -> None:
        threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
        try:
            await asyncio.sleep(30)
        finally:
            # A slow cleanup, during which Ctrl-C comes again.
            threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
            await asyncio.shield(asyncio.sleep(0.5))

    with pytest.raises(Interrupted):
        run_interruptible(work)
    assert killed == ["all"]


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    """`code` in a Python process of its own: these tests send it signals."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_second_signal_while_the_first_is_handled_is_absorbed() -> None:
    done = run_python(
        """
        import os, signal
        from codex_probe.harness.interrupts import Interrupted, interruptible
        try:
            with interruptible():
                try:
                    os.kill(os.getpid(), signal.SIGINT)
                except Interrupted:
                    os.kill(os.getpid(), signal.SIGTERM)  # while cleaning up
                    print("cleaned up")
        except Interrupted as interrupted:
            print("interrupted again:", interrupted)
        """
    )
    assert done.returncode == 0 and done.stdout == "cleaned up\n", done.stdout + done.stderr


def test_a_signal_after_an_interrupted_command_is_ignored_while_the_process_exits() -> None:
    done = run_python(
        """
        import os, signal, sys
        from codex_probe.harness.interrupts import Interrupted, interruptible
        try:
            with interruptible(exiting=True):
                os.kill(os.getpid(), signal.SIGINT)
        except Interrupted:
            print("codex-probe: interrupted (SIGINT)")
        os.kill(os.getpid(), signal.SIGINT)  # a second Ctrl-C as the process exits
        sys.exit(130)
        """
    )
    assert done.returncode == 130 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == "codex-probe: interrupted (SIGINT)\n"


# An object whose finalizer sends the process a Ctrl-C and spins until it lands there:
# the Interrupted it raises cannot leave the finalizer, and Python reports it as unraisable.
SWALLOWS_A_CTRL_C = """
import os, signal, time

class SwallowsACtrlC:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            pass
"""


def test_a_ctrl_c_a_finalizer_swallowed_still_ends_the_block_as_interrupted() -> None:
    done = run_python(
        SWALLOWS_A_CTRL_C
        + """
from codex_probe.harness.interrupts import Interrupted, interruptible
try:
    with interruptible():
        finalized = SwallowsACtrlC()
        del finalized
        print("went on")
except Interrupted as interrupted:
    print("interrupted:", interrupted)
"""
    )
    assert done.stdout == "went on\ninterrupted: SIGINT\n", done.stdout + done.stderr
    assert "Exception ignored" not in done.stderr, done.stderr


def test_a_ctrl_c_a_finalizer_swallowed_ends_the_command_before_its_next_run() -> None:
    done = run_python(
        SWALLOWS_A_CTRL_C
        + """
from codex_probe.harness.interrupts import Interrupted, interruptible, run_interruptible
ran = []

async def work():
    ran.append("ran")

with interruptible():
    try:
        finalized = SwallowsACtrlC()
        del finalized
        run_interruptible(work)
    except Interrupted as interrupted:
        print("interrupted:", interrupted, ran)
print("the block ended")
"""
    )
    assert done.stdout == "interrupted: SIGINT []\nthe block ended\n", done.stdout + done.stderr
    assert "Exception ignored" not in done.stderr, done.stderr
