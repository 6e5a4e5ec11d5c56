"""end_process_group: a Popen child in its own session ends with everything in its group."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from codex_probe.harness.jsonrpc.process import end_process_group

# A child that leaves a grandchild in its group, then waits for stdin to close.
PARENT_OF_A_SLEEPER = (
    "import subprocess, sys; "
    "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
    "print('ready', flush=True); sys.stdin.read()"
)
IGNORES_EOF_AND_SIGTERM = (
    "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "print('ready', flush=True); sys.stdin.read(); time.sleep(60)"
)


def start(code: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "ready\n"
    return process


def live_members(pgid: int) -> list[int]:
    """Processes of group `pgid` still running (zombies waiting for a reaper do not count)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue  # ended while we looked
        # pid (comm) state ppid pgrp ...: comm may hold spaces, so split after its ')'.
        state, _ppid, pgrp = text[text.rindex(")") + 2 :].split()[:3]
        if int(pgrp) == pgid and state != "Z":
            members.append(int(stat.parent.name))
    return members


def test_a_child_that_ends_on_eof_is_ended_by_closing_stdin_not_by_a_signal() -> None:
    with start(PARENT_OF_A_SLEEPER) as process:
        end_process_group(process, grace=5.0)
    assert process.returncode == 0
    # The grandchild it left behind is killed with the group.
    # SIGKILL is delivered, not waited for: give the kernel a moment to end it.
    deadline = time.monotonic() + 5.0
    while live_members(process.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert live_members(process.pid) == []


def test_a_child_that_ignores_eof_and_sigterm_is_killed() -> None:
    with start(IGNORES_EOF_AND_SIGTERM) as process:
        started = time.monotonic()
        end_process_group(process, grace=0.5)
    assert process.returncode == -signal.SIGKILL
    assert time.monotonic() - started < 5.0
