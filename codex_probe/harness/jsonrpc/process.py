"""A server child process: own session, explicit environment, stderr tail, sure shutdown.

Shutdown follows the MCP stdio sequence: close stdin, wait, SIGTERM the process
group, wait, SIGKILL the group. Every live group is also remembered so that an
interpreter exit (a crashed or interrupted test session) still kills it.

`end_process_group` is the same sequence for a child started with subprocess.Popen in
its own session (the browser, the gate's probe run): the one place group-ending lives.

The server's stdout is handed to its reader as it arrives (`read_stdout`), not through
an asyncio StreamReader: a reader that needs a task to await each line costs several
turns of the event loop per message, which is most of a round trip's cost.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import re
import signal
import subprocess
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from codex_probe.harness.forks.client import ForkServer

STDERR_TAIL_LINES = 200
# A single JSON-RPC frame can carry a whole thread with its turns (the client holds a line
# of stdout to this length); a stderr line too.
STREAM_LIMIT = 64 * 1024 * 1024
STDERR_CHUNK = 1 << 16
# Of a longer stderr line, the tail keeps its start and says how much more there was.
STDERR_LINE_KEPT = 8192

# Terminal escape sequences (codex colours its log lines): CSI (colours, cursor), OSC
# (titles, links) ended by BEL or ST, and the short ones (ESC, intermediates, a final
# byte: `ESC ( B`, `ESC 7`). The tail keeps plain text, so timeouts, evidence and
# summary.md never carry them.
_ANSI_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[ -/]*[0-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)

_live_groups: set[int] = set()


def strip_ansi(text: str) -> str:
    """`text` without terminal escape sequences (colours and the like)."""
    return _ANSI_ESCAPE.sub("", text)


def signal_group(pgid: int, signum: int) -> None:
    """Send `signum` to process group `pgid`, if anything of it is left to signal."""
    # PermissionError: macOS refuses to signal a group whose members are all zombies.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def end_process_group(process: subprocess.Popen[Any], *, grace: float) -> None:
    """End a Popen child started with start_new_session=True, and everything in its group.

    Close its stdin (if it has a pipe) and wait, then SIGTERM the group and wait, then
    SIGKILL it; each wait is at most `grace` seconds.
    """
    if process.poll() is None and process.stdin is not None:
        with contextlib.suppress(OSError):
            process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
    if process.poll() is None:
        signal_group(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            signal_group(process.pid, signal.SIGKILL)
            process.wait(timeout=grace)
    # Anything still in the group (browser helpers, codex, fakes) must not outlive it.
    signal_group(process.pid, signal.SIGKILL)


def kill_live_groups() -> None:
    """SIGKILL every app-server process group still alive: at exit, or when a second Ctrl-C
    asks for the end at once (codex_probe/harness/interrupts.py)."""
    for pgid in list(_live_groups):
        signal_group(pgid, signal.SIGKILL)
    _live_groups.clear()


atexit.register(kill_live_groups)


# Called with each piece of stdout as it arrives, in order.
StdoutData = Callable[[bytes], None]
# Called once when stdout ends: None at end of file, else the error that ended it.
StdoutEnd = Callable[[Exception | None], None]


class _Stdout:
    """The server's stdout until a reader takes it: what arrives before is kept for it."""

    def __init__(self) -> None:
        self._early: list[bytes] = []
        self._ended: tuple[Exception | None] | None = None
        self._on_data: StdoutData | None = None
        self._on_end: StdoutEnd | None = None

    def take(self, on_data: StdoutData, on_end: StdoutEnd) -> None:
        if self._on_data is not None:
            raise RuntimeError("the server's stdout already has a reader")
        self._on_data, self._on_end = on_data, on_end
        early, self._early = self._early, []
        for data in early:
            on_data(data)
        if self._ended is not None:
            on_end(self._ended[0])

    def data(self, data: bytes) -> None:
        if self._on_data is None:
            self._early.append(data)
        else:
            self._on_data(data)

    def end(self, error: Exception | None) -> None:
        if self._on_end is None:
            self._ended = (error,)
        else:
            self._on_end(error)


class _StdoutProtocol(asyncio.Protocol):
    """The read end of the server's stdout, read straight into `_Stdout`.

    Not through asyncio's subprocess transport, which hands each piece of output on with
    one more turn of the event loop.
    """

    def __init__(self, stdout: _Stdout) -> None:
        self._stdout = stdout

    def data_received(self, data: bytes) -> None:
        self._stdout.data(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stdout.end(exc)


class ChildProcess(Protocol):
    """What a server's process is to us: an asyncio subprocess, or a forked child of a warm
    process (harness/forks/client.py's ForkedProcess)."""

    pid: int

    @property
    def returncode(self) -> int | None: ...
    @property
    def stdin(self) -> asyncio.StreamWriter | None: ...
    @property
    def stderr(self) -> asyncio.StreamReader | None: ...
    async def wait(self) -> int: ...


class ServerProcess:
    """A started child process whose stdio carries the protocol."""

    def __init__(
        self,
        process: ChildProcess,
        argv: Sequence[str],
        stdout: _Stdout,
        stdout_transport: asyncio.BaseTransport,
    ) -> None:
        self.process = process
        self.argv = list(argv)
        self.pid = process.pid
        self._stdout = stdout
        self._stdout_transport = stdout_transport
        self._stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._stderr_task = asyncio.create_task(self._drain_stderr(), name=f"stderr-{self.pid}")
        _live_groups.add(self.pid)

    @classmethod
    async def start(
        cls, argv: Sequence[str], *, env: Mapping[str, str], cwd: Path | None = None
    ) -> ServerProcess:
        def spawn(stdout_write: int) -> Awaitable[ChildProcess]:
            return asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=stdout_write,
                stderr=asyncio.subprocess.PIPE,
                env=dict(env),
                cwd=cwd,
                start_new_session=True,
                limit=STREAM_LIMIT,
            )

        return await cls._started(argv, spawn)

    @classmethod
    async def start_forked(
        cls,
        forks: ForkServer,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: Path,
        seal: list[str] | None,
    ) -> ServerProcess:
        """The same, a fork of `forks`' warm process instead of an exec (harness/forks):
        sealed with the seal's helper options `seal` (None: unsealed)."""

        def fork(stdout_write: int) -> Awaitable[ChildProcess]:
            return forks.start(argv, env=env, cwd=cwd, seal=seal, stdout_fd=stdout_write)

        return await cls._started(argv, fork)

    @classmethod
    async def _started(
        cls, argv: Sequence[str], begin: Callable[[int], Awaitable[ChildProcess]]
    ) -> ServerProcess:
        """The process `begin(stdout_write)` starts, writing its stdout into a new pipe."""
        stdout_read, stdout_write = os.pipe()
        try:
            process = await begin(stdout_write)
        except BaseException:
            os.close(stdout_read)
            raise
        finally:
            os.close(stdout_write)  # the child's copy is the only writer: its end is our EOF
        return await cls._reading(process, argv, stdout_read)

    @classmethod
    async def _reading(
        cls, process: ChildProcess, argv: Sequence[str], stdout_read: int
    ) -> ServerProcess:
        """The started `process`, its stdout (the read end `stdout_read`) read as it comes."""
        stdout = _Stdout()
        # A file object over the pipe's fd (no I/O here), closed by the transport it goes to.
        pipe = os.fdopen(stdout_read, "rb", buffering=0)
        try:
            loop = asyncio.get_running_loop()
            transport, _ = await loop.connect_read_pipe(lambda: _StdoutProtocol(stdout), pipe)
        except BaseException:
            pipe.close()
            signal_group(process.pid, signal.SIGKILL)
            raise
        return cls(process, argv, stdout, transport)

    @property
    def stdin(self) -> asyncio.StreamWriter:
        assert self.process.stdin is not None
        return self.process.stdin

    def read_stdout(self, on_data: StdoutData, on_end: StdoutEnd) -> None:
        """Hand stdout to one reader: `on_data(bytes)` as it arrives (what came before too),
        then `on_end(error or None)` once. Both are called on the event loop."""
        self._stdout.take(on_data, on_end)

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def stderr_tail(self, lines: int = 40) -> str:
        return "\n".join(list(self._stderr_tail)[-lines:])

    async def stderr_ended(self, seconds: float) -> bool:
        """Wait at most `seconds` for the server's stderr to end (all of it in the tail)."""
        try:
            async with asyncio.timeout(seconds):
                await asyncio.shield(self._stderr_task)
        except TimeoutError:
            return False
        return True

    async def _drain_stderr(self) -> None:
        # Read in chunks, not lines: a line longer than the stream's limit (codex writing
        # 64 MiB without a newline) would end readline() with an error, and the tail with it.
        assert self.process.stderr is not None
        lines = StderrLines()
        while chunk := await self.process.stderr.read(STDERR_CHUNK):
            self._stderr_tail.extend(lines.feed(chunk))
        self._stderr_tail.extend(lines.end())

    async def shutdown(self, *, grace: float = 2.0, term_grace: float = 2.0) -> int | None:
        """End the process and its group; return its exit code (None if it could not be reaped)."""
        try:
            if self.process.returncode is None:
                with contextlib.suppress(OSError, RuntimeError):
                    self.stdin.close()
                if not await self._exited_within(grace):
                    self._signal_group(signal.SIGTERM)
                    if not await self._exited_within(term_grace):
                        self._signal_group(signal.SIGKILL)
                        await self._exited_within(term_grace)
            # Children of the server may still hold the group; they must not outlive it.
            self._signal_group(signal.SIGKILL)
        finally:
            _live_groups.discard(self.pid)
            self._stdout_transport.close()
            await self._finish_stderr()
        return self.process.returncode

    def kill_now(self) -> None:
        """Synchronous last resort, for paths that cannot await (cancellation, finalizers)."""
        self._signal_group(signal.SIGKILL)
        _live_groups.discard(self.pid)
        self._stdout_transport.close()

    async def _exited_within(self, seconds: float) -> bool:
        try:
            async with asyncio.timeout(seconds):
                await self.process.wait()
        except TimeoutError:
            return False
        return True

    def _signal_group(self, signum: int) -> None:
        signal_group(self.pid, signum)

    async def _finish_stderr(self) -> None:
        try:
            async with asyncio.timeout(1.0):
                await asyncio.shield(self._stderr_task)
        except TimeoutError:
            self._stderr_task.cancel()
        except asyncio.CancelledError:
            # Ours to swallow only when the stderr task was the one cancelled: swallowing the
            # caller's cancellation would lose a Ctrl-C (asyncio.run turns it into one).
            if not self._stderr_task.cancelled():
                self._stderr_task.cancel()
                raise


class StderrLines:
    """A server's stderr bytes, split into lines as they come; a line is kept up to
    STDERR_LINE_KEPT bytes (the rest counted, never held), ANSI colours stripped."""

    def __init__(self) -> None:
        self._line = bytearray()
        self._dropped = 0

    def feed(self, chunk: bytes) -> list[str]:
        done = []
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            self._take(chunk[start:end])
            done.append(self._finish())
            start = end + 1
        self._take(chunk[start:])
        return done

    def end(self) -> list[str]:
        return [self._finish()] if self._line or self._dropped else []

    def _take(self, part: bytes) -> None:
        room = STDERR_LINE_KEPT - len(self._line)
        self._line += part[:room]
        self._dropped += max(0, len(part) - room)

    def _finish(self) -> str:
        text = strip_ansi(self._line.decode("utf-8", "replace").rstrip("\r"))
        if self._dropped:
            text += f" ... ({self._dropped} more bytes of this line)"
        self._line.clear()
        self._dropped = 0
        return text
