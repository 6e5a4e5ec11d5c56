"""`codex app-server` over stdio, in its own process group: requests with deadlines,
notifications kept until a wait takes them, and an end that leaves no process behind."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codex_probe.probes.releases.repro.script.outcomes import CouldNotRun, ServerGone, json_or_none

CLOSE_GRACE_S = 2.0


class AppServer:
    """One `codex app-server` process in its own process group: requests with deadlines,
    notifications kept until a wait takes them, server requests refused."""

    def __init__(
        self, command: list[str], env: dict[str, str], cwd: Path, received: list[Any]
    ) -> None:
        """Start `command` (`codex app-server --listen stdio://`, sealed where it can be)."""
        try:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                cwd=cwd,
                start_new_session=True,  # so that closing it ends everything it started
            )
        except OSError as error:
            raise CouldNotRun(f"cannot start {shlex.join(command)}: {error}") from None
        self.received = received  # every message of every process, in order
        self.answers: dict[int, dict[str, Any]] = {}
        self.waiting: set[int] = set()
        self.notifications: list[dict[str, Any]] = []
        self.changed = threading.Condition()
        self.writing = threading.Lock()
        self.stdout_closed = False
        self.stderr_tail = ""
        self.next_id = 1
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            message = json_or_none(line)
            if not isinstance(message, dict):
                continue
            with self.changed:
                self.received.append(message)
                # An answer nobody waits for any more (a late one) is dropped.
                if "method" not in message and message.get("id") in self.waiting:
                    self.answers[message["id"]] = message
                elif "method" in message and "id" not in message:
                    self.notifications.append(message)
                self.changed.notify_all()
            if "method" in message and "id" in message:  # a request of the server's
                text = f"reproduce.py has no handler for server request {message['method']!r}"
                self._write({"id": message["id"], "error": {"code": -32601, "message": text}})
        with self.changed:
            self.stdout_closed = True
            self.changed.notify_all()

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr_tail = (self.stderr_tail + line.decode("utf-8", "replace"))[-2000:]

    def _write(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        line = json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n"
        with self.writing:
            try:
                self.process.stdin.write(line.encode())
                self.process.stdin.flush()
            except (OSError, ValueError):
                pass  # the process is gone: the reader sees it

    def _gone(self) -> ServerGone:
        try:
            code: Any = self.process.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            code = "none yet"
        tail = self.stderr_tail.strip().splitlines()[-3:]
        return ServerGone(f"codex exited (exit code {code}); stderr: {' | '.join(tail)}")

    def request(self, method: str, params: Any, timeout: float) -> dict[str, Any] | None:
        """The answer (`result` or `error`), or None when none came within `timeout`."""
        with self.changed:
            request_id = self.next_id
            self.next_id += 1
            self.waiting.add(request_id)
        frame: dict[str, Any] = {"id": request_id, "method": method}
        if params is not None:
            frame["params"] = params
        self._write(frame)
        with self.changed:
            self.changed.wait_for(lambda: request_id in self.answers or self.stdout_closed, timeout)
            self.waiting.discard(request_id)
            answer = self.answers.pop(request_id, None)
        if answer is None and self.stdout_closed:
            raise self._gone()
        return answer

    def notify(self, method: str) -> None:
        self._write({"method": method})

    def wait_notification(
        self, method: str, matches: Callable[[dict[str, Any]], bool], timeout: float
    ) -> dict[str, Any] | None:
        """The params of the first notification of `method` that matches (taken), or None."""

        def find() -> dict[str, Any] | None:
            for position, note in enumerate(self.notifications):
                given = note.get("params")
                params: dict[str, Any] = given if isinstance(given, dict) else {}
                if note["method"] == method and matches(params):
                    del self.notifications[position]
                    return params
            return None

        with self.changed:
            found = None
            deadline = time.monotonic() + timeout
            while (found := find()) is None and not self.stdout_closed:
                if not self.changed.wait(deadline - time.monotonic()):
                    break
            if found is None and self.stdout_closed:
                raise self._gone()
        return found

    def close(self) -> int | None:
        """End the process: stdin first, then SIGTERM and SIGKILL to its whole group."""
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        for ending in (None, signal.SIGTERM, signal.SIGKILL):
            if ending is not None:
                _signal_group(self.process.pid, ending)
            try:
                self.process.wait(timeout=CLOSE_GRACE_S)
                break
            except subprocess.TimeoutExpired:
                continue
        _signal_group(self.process.pid, signal.SIGKILL)  # anything it left in its group
        return self.process.poll()


def version_of(codex: str, env: dict[str, str], timeout: float) -> str:
    """What `codex --version` says (informative: a bundle may be run on any release)."""
    try:
        process = subprocess.Popen(
            [codex, "--version"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
    except OSError as error:
        return f"unknown ({error})"
    try:
        said, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        said = b""
    finally:
        _signal_group(process.pid, signal.SIGKILL)  # it, and anything it left running
        process.wait()
    lines = said.decode("utf-8", "replace").strip().splitlines()
    return lines[-1][:200] if lines else f"unknown (no answer to --version within {timeout:g} s)"


def _signal_group(pid: int, number: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, number)


def thread_of(params: dict[str, Any]) -> Any:
    """The thread a notification is about (`threadId`, or `thread.id`), as codex-probe reads it."""
    if "threadId" in params:
        return params["threadId"]
    thread = params.get("thread")
    return thread.get("id") if isinstance(thread, dict) else None
