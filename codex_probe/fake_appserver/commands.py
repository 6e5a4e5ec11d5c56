"""The commands a scripted model asks the fake to run (`exec_command`), run as codex would.

codex runs such a command as `/bin/bash -lc CMD` in the turn's working folder, inside its
sandbox, and sends the model the output (stdout and stderr as one stream), the exit code
and the wall time. The fake does the same through `confine.py`: every mount read-only but
the folders the sandbox lets the command write, no network, the environment the fake was
given less CODEX_HOME (`harness.child_env.FAKE_COMMAND`). Where the host allows no user
namespace the command is not run: its output says so and its exit code is
`confine.EXIT_UNCONFINED`.

A command still running after the call's `yield_time_ms` (default 10 s) is answered as
codex answers it, with the output so far and a session id (its pid); it runs on, and its
item completes when it ends, after the turn if need be (measured on 0.120.0, 0.150.0 and
0.171.0; the late item of 0.120.0 and 0.150.0 holds at times only the output after the
answer, 0.171.0's and the fake's all of it). The fake kills it DEADLINE_S after its start,
or when the fake ends. Not imitated: the session id is good for nothing (`write_stdin` is
not offered); output beyond `max_output_tokens` is not truncated.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

CONFINE = Path(__file__).resolve().with_name("confine.py")
SHELL = "/bin/bash" if Path("/bin/bash").exists() else "/bin/sh"
# How long a call waits for its command unless it says (`yield_time_ms`), and at most.
YIELD_S = 10.0
DEADLINE_S = 30.0


@dataclass(frozen=True)
class CommandResult:
    exit_code: int | None  # None: still running (or killed at DEADLINE_S)
    output: str
    wall_s: float
    pid: int


class RunningCommand:
    """A command started confined, its output read as it comes.

    `wait(seconds)` is what a call sees: the end, or the output so far with the command
    still running; `finish()` waits for the end (killing the command's group at
    DEADLINE_S after its start). A cancelled wait kills it: it never outlives its turn's
    work, nor the fake."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.started = time.monotonic()
        self._chunks: list[bytes] = []
        self._reading = asyncio.ensure_future(self._read())

    @property
    def pid(self) -> int:
        return self.process.pid

    async def wait(self, seconds: float) -> CommandResult:
        """The command's result if it ends within `seconds`, else the output so far
        (exit code None) with the command still running."""
        try:
            async with asyncio.timeout(seconds):
                await asyncio.shield(self._reading)  # stdout closed by all it started
                await self.process.wait()
        except TimeoutError:
            pass
        except BaseException:
            await self._end()
            raise
        return self._result()

    async def finish(self) -> CommandResult:
        """The command's result once it ends; at DEADLINE_S from its start it is killed."""
        left = DEADLINE_S - (time.monotonic() - self.started)
        result = await self.wait(max(left, 0.0))
        if result.exit_code is None:
            await self._end()
            result = self._result()
        return result

    def _result(self) -> CommandResult:
        ended = self.process.returncode is not None and self._reading.done()
        return CommandResult(
            self.process.returncode if ended else None,
            b"".join(self._chunks).decode("utf-8", "replace"),
            time.monotonic() - self.started,
            self.pid,
        )

    async def _end(self) -> None:
        """Kill the command's process group and wait for it (shielded: it happens)."""
        self.kill()
        await asyncio.shield(asyncio.gather(self._reading, self.process.wait()))

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None  # started with stdout=PIPE
        while piece := await stdout.read(64 * 1024):
            self._chunks.append(piece)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)


async def start_command(command: str, cwd: str, *, writable: list[str]) -> RunningCommand:
    """Start `command` in `cwd`, confined, writing only to `writable`."""
    # Loaded by the first command, not at the fake's start (tests/fake/test_fake_imports.py).
    from codex_probe.harness.child_env import FAKE_COMMAND, child_env

    options = [part for folder in writable for part in ("--writable", folder)]
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",
        "-S",
        str(CONFINE),
        *options,
        "--",
        SHELL,
        "-lc",
        command,
        cwd=cwd,
        env=child_env(FAKE_COMMAND),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    return RunningCommand(process)
