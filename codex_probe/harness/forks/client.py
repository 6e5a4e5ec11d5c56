"""Start a Python program by forking a warm copy of it: the harness's side of `server.py`.

A fake app-server spends about 0.15 CPU-s of its 0.2 starting Python and importing
itself; a history starts 28 of them per release. A `ForkServer` starts one warm process
that has imported the program (`server.py`), and each start asks it for a fork: the child
gets the stdio pipes made here, its own session, the seal, the environment and the argv it
would have had from an exec'd launcher, and costs about 0.05 CPU-s.

What the rest of the harness sees is a `ForkedProcess`: the pid, stdin, stderr, wait() and
returncode of an asyncio subprocess, and a process group of its own to signal, so
`jsonrpc/process.py` ends it exactly as it ends an exec'd one. The child is the warm
process's, not ours: its exit status comes over the socket, and it dies with the warm
process, which dies with the thread of ours that started it (a thread that lives as long
as the connection; `harness/parent_death.py`).

Linux only (pidfds, SCM_RIGHTS); elsewhere `available()` says no and programs are exec'd.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from codex_probe.harness.parent_death import bound_to_this_process

READY_TIMEOUT = 60.0
START_TIMEOUT = 30.0
CLOSE_TIMEOUT = 10.0
STREAM_LIMIT = 64 * 1024 * 1024
_MESSAGE_LIMIT = 1 << 16
_STDERR_KEPT = 4000

ExitCallback = Callable[[int], None]


class ForkServerError(OSError):
    """The warm process could not be started, or ended."""


def available() -> bool:
    """Whether this host can run a fork server: Linux with pidfds and descriptor passing."""
    if not sys.platform.startswith("linux") or not hasattr(socket, "send_fds"):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, OSError):
        return False
    return True


class ForkedProcess:
    """A forked child as jsonrpc/process.py uses an asyncio subprocess."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.pid = 0
        self.returncode: int | None = None
        self.stdin: asyncio.StreamWriter | None = None
        self.stderr: asyncio.StreamReader | None = None
        self._loop = loop
        self._exited: asyncio.Future[int] = loop.create_future()

    async def wait(self) -> int:
        return await asyncio.shield(self._exited)

    def exited_from_any_thread(self, code: int) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody is waiting
            self._loop.call_soon_threadsafe(self._exit, code)

    def _exit(self, code: int) -> None:
        if not self._exited.done():
            self.returncode = code
            self._exited.set_result(code)


class _Connection:
    """One warm process and the thread that started it and reads what it says."""

    def __init__(self, command: list[str], control: socket.socket, peer: socket.socket) -> None:
        self._command = command
        self._control = control
        self._peer = peer
        self._send_lock = threading.Lock()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._starting: dict[int, tuple[Future[int], ExitCallback]] = {}
        self._running: dict[int, ExitCallback] = {}
        self._ended: str | None = None
        self.ready: Future[int] = Future()
        self._thread = threading.Thread(target=self._run, name="fork-server", daemon=True)
        self._thread.start()

    @property
    def alive(self) -> bool:
        return self._ended is None

    def start(self, payload: dict[str, Any], fds: list[int], on_exit: ExitCallback) -> Future[int]:
        """Ask for a child; the future gives its pid. `on_exit(code)` is called, from the
        reader thread, when it ends."""
        started: Future[int] = Future()
        with self._lock:
            if self._ended is not None:
                raise ForkServerError(self._ended)
            request_id = next(self._ids)
            self._starting[request_id] = (started, on_exit)
        message = json.dumps({"id": request_id, **payload}).encode()
        try:
            with self._send_lock:
                socket.send_fds(self._control, [message], fds)
        except OSError as error:
            with self._lock:
                self._starting.pop(request_id, None)
            raise ForkServerError(f"the fork server cannot be asked: {error}") from None
        return started

    def close(self) -> None:
        """End the warm process (and any child of it still running) and wait for it, so that
        its CPU time is counted as ours (RUSAGE_CHILDREN), as an exec'd child's is."""
        with contextlib.suppress(OSError):
            self._control.shutdown(socket.SHUT_RDWR)
        self._thread.join(CLOSE_TIMEOUT)

    def _run(self) -> None:
        # Started from this thread, which lives as long as the connection: the warm process
        # gets its parent-death signal from the thread that started it.
        try:
            process = subprocess.Popen(
                bound_to_this_process([*self._command, str(self._peer.fileno())]),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                pass_fds=(self._peer.fileno(),),
                env={},
                # Not in the terminal's group: a Ctrl-C is the harness's to handle, and it
                # ends the forked children as it ends exec'd ones.
                start_new_session=True,
            )
        except OSError as error:
            self._control.close()
            self._end(f"the fork server could not start: {error}")
            return
        finally:
            self._peer.close()
        ending = "the fork server ended"
        try:
            ending = self._read()
        finally:
            with contextlib.suppress(OSError):
                self._control.shutdown(socket.SHUT_RDWR)
            self._control.close()
            try:  # it ends its children when the socket ends, then itself
                _, said = process.communicate(timeout=CLOSE_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                _, said = process.communicate()
            tail = said.decode("utf-8", "replace").strip()[-_STDERR_KEPT:]
            self._end(f"{ending}: {tail}" if tail else ending)

    def _read(self) -> str:
        """What the warm process says until it ends; then why it ended."""
        self._control.settimeout(READY_TIMEOUT)
        try:
            first = self._control.recv(_MESSAGE_LIMIT)
        except TimeoutError:
            return f"the fork server was not ready within {READY_TIMEOUT:.0f} s"
        if not first:
            return "the fork server ended before it was ready"
        self.ready.set_result(json.loads(first)["ready"])
        self._control.settimeout(None)
        while data := self._control.recv(_MESSAGE_LIMIT):
            self._dispatch(json.loads(data))
        return "the fork server ended"

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "exited" in message:
            with self._lock:
                on_exit = self._running.pop(message["exited"], None)
            if on_exit is not None:
                on_exit(message["code"])
            return
        with self._lock:
            started, on_exit = self._starting.pop(message["id"])
            if "pid" in message:
                self._running[message["pid"]] = on_exit
        if "pid" in message:
            started.set_result(message["pid"])
        else:
            why = f"the fork server could not fork: {message['error']}"
            started.set_exception(ForkServerError(why))

    def _end(self, why: str) -> None:
        with self._lock:
            self._ended = why
            starting, self._starting = self._starting, {}
            running, self._running = self._running, {}
        if not self.ready.done():
            self.ready.set_exception(ForkServerError(why))
        for started, _ in starting.values():
            if not started.done():
                started.set_exception(ForkServerError(why))
        # Each child asked for SIGKILL when the warm process went.
        for on_exit in running.values():
            on_exit(-signal.SIGKILL)


class ForkServer:
    """Starts `entry` (`package.module:function`, called with argv[1:]) by forking a warm
    process that imported `preload` with `roots` (the program's folders; codex_probe's
    and the warm process's own come first) in front of its import path."""

    def __init__(self, entry: str, preload: Sequence[str], roots: Sequence[str]) -> None:
        self._entry = entry
        self._preload = list(preload)
        self._roots = list(dict.fromkeys([*_own_roots(), *roots]))
        self._lock = threading.Lock()
        self._connection: _Connection | None = None

    def _connect(self) -> _Connection:
        with self._lock:
            if self._connection is None or not self._connection.alive:
                ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                # Its end of the socket: the descriptor number its last argument names.
                program = (
                    f"import sys; sys.path[:0] = {self._roots!r}; "
                    "from codex_probe.harness.forks.server import serve; "
                    f"sys.exit(serve(int(sys.argv[1]), {self._entry!r}, {self._preload!r}))"
                )
                command = [sys.executable, "-I", "-S", "-c", program]
                self._connection = _Connection(command, ours, theirs)
            connection = self._connection
        connection.ready.result(timeout=READY_TIMEOUT + 5)
        return connection

    async def start(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: Path | str,
        seal: list[str] | None,
        stdout_fd: int,
    ) -> ForkedProcess:
        """A child running the program with `argv`, `env`, in `cwd`, sealed with the seal's
        helper options (`harness.codex.seal.seal_options`; None: unsealed), writing its
        stdout to `stdout_fd` (the caller keeps and closes its own copy)."""
        loop = asyncio.get_running_loop()
        connection = await asyncio.to_thread(self._connect)
        process = ForkedProcess(loop)
        stdin_read, stdin_write = os.pipe()
        stderr_read, stderr_write = os.pipe()
        payload = {"argv": list(argv), "env": dict(env), "cwd": str(cwd), "seal": seal}
        try:
            try:
                started = connection.start(
                    payload, [stdin_read, stdout_fd, stderr_write], process.exited_from_any_thread
                )
            finally:
                os.close(stdin_read)
                os.close(stderr_write)
            try:
                async with asyncio.timeout(START_TIMEOUT):
                    process.pid = await asyncio.shield(asyncio.wrap_future(started))
            except BaseException:
                # Asked and given up on: whatever starts is ended at once.
                started.add_done_callback(_kill_if_started)
                raise
            # A pipe end is the stream's once the call that takes it begins (the call closes
            # it if it fails), so it is marked handed over first: a KeyboardInterrupt, which
            # asyncio.Runner raises wherever the main thread stands, landing after the call
            # left the cleanup below closing it again, whose EBADF then replaced the Ctrl-C.
            handed, stdin_write = stdin_write, -1
            process.stdin = await _writer(loop, handed)
            handed, stderr_read = stderr_read, -1
            process.stderr = await _reader(loop, handed)
        except BaseException:
            for fd in (stdin_write, stderr_read):
                if fd >= 0:
                    with contextlib.suppress(OSError):  # the exception in flight is the one
                        os.close(fd)
            if process.pid:
                _kill_group(process.pid)
            raise
        return process

    @property
    def pid(self) -> int | None:
        """The warm process's pid, once it is ready and while it runs."""
        connection = self._connection
        if connection is None or not connection.alive or not connection.ready.done():
            return None
        return None if connection.ready.exception() else connection.ready.result()

    def close(self) -> None:
        """End the warm process, if one runs (the next start makes a new one)."""
        with self._lock:
            connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()


def _own_roots() -> list[str]:
    """The folders the warm process imports its own code from: codex_probe's, and its one
    dependency's (setproctitle, which gives each child the command line ps shows)."""
    import codex_probe

    spec = importlib.util.find_spec("setproctitle")
    if spec is None or spec.origin is None:
        raise ForkServerError("the fork server needs setproctitle, which is not installed")
    packages = [Path(codex_probe.__file__ or "").parent, Path(spec.origin).parent]
    return [str(package.parent) for package in packages]


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _kill_if_started(started: Future[int]) -> None:
    if not started.cancelled() and started.exception() is None:
        _kill_group(started.result())


async def _writer(loop: asyncio.AbstractEventLoop, fd: int) -> asyncio.StreamWriter:
    pipe = os.fdopen(fd, "wb", buffering=0)
    try:
        transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), pipe
        )
    except BaseException:
        pipe.close()
        raise
    return asyncio.StreamWriter(transport, protocol, None, loop)


async def _reader(loop: asyncio.AbstractEventLoop, fd: int) -> asyncio.StreamReader:
    reader = asyncio.StreamReader(limit=STREAM_LIMIT)
    pipe = os.fdopen(fd, "rb", buffering=0)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
    except BaseException:
        pipe.close()
        raise
    return reader
