"""Ctrl-C, SIGTERM and SIGHUP end a command as a cancellation: one line, 128 + the signal."""

from __future__ import annotations

import asyncio
import os
import signal
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
