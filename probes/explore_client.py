"""The smallest JSON-RPC stdio client the exploration needs, recording everything.

Newline-delimited JSON without a "jsonrpc" member, as codex app-server speaks it.
Responses (results *and* errors) are returned, not raised: errors are what the
exploration measures. Every wait has a deadline; close() ends the process group.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections import deque
from pathlib import Path
from typing import Any

REQUEST_TIMEOUT_S = 30.0
EXIT_GRACE_S = 3.0


class RpcProcess:
    def __init__(self, transcript: list[dict[str, Any]], generation: int, stderr_path: Path):
        # The transcript is shared by the processes of one scenario (restarts included).
        self.transcript = transcript
        self.generation = generation
        self.stderr_path = stderr_path
        self.stderr_tail: deque[str] = deque(maxlen=40)
        self._proc: asyncio.subprocess.Process | None = None
        self._next_id = 1
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._notifications: list[dict[str, Any]] = []
        self._changed = asyncio.Condition()
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self._proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=True,  # own process group, so close() reaches children
            limit=64 * 1024 * 1024,
        )
        self._tasks = [
            asyncio.create_task(self._read_stdout()),
            asyncio.create_task(self._read_stderr()),
        ]

    def _record(self, direction: str, message: dict[str, Any]) -> None:
        self.transcript.append(
            {"process": self.generation, "dir": direction, "t": time.monotonic(), "msg": message}
        )

    async def _send(self, message: dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        self._record("send", message)
        self._proc.stdin.write((json.dumps(message) + "\n").encode())
        await self._proc.stdin.drain()

    async def request(
        self, method: str, params: Any = None, timeout: float = REQUEST_TIMEOUT_S
    ) -> dict[str, Any]:
        request_id = self._next_id
        self._next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        message: dict[str, Any] = {"id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        started = time.monotonic()
        await self._send(message)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise TimeoutError(
                f"{method} (id {request_id}) unanswered after {time.monotonic() - started:.1f}s; "
                f"stderr tail: {list(self.stderr_tail)[-5:]}"
            ) from None
        finally:
            self._pending.pop(request_id, None)

    async def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"method": method}
        if params is not None:
            message["params"] = params
        await self._send(message)

    def mark(self) -> int:
        """A position in the notification stream, for waits that must not see older ones."""
        return len(self._notifications)

    async def wait_notification(
        self, method: str, timeout: float, after: int = 0
    ) -> dict[str, Any]:
        def found() -> dict[str, Any] | None:
            for note in self._notifications[after:]:
                if note.get("method") == method:
                    return note
            return None

        try:
            async with asyncio.timeout(timeout), self._changed:
                await self._changed.wait_for(lambda: found() is not None)
        except TimeoutError:
            raise TimeoutError(
                f"no {method} notification within {timeout}s; "
                f"stderr tail: {list(self.stderr_tail)[-5:]}"
            ) from None
        note = found()
        assert note is not None
        return note

    async def _read_stdout(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        async for line in self._proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                self._record("recv-unparsed", {"line": line.decode(errors="replace")})
                continue
            self._record("recv", message)
            if "method" in message and "id" in message:
                # A server-initiated request (approvals etc.): the exploration never
                # grants anything, so it declines rather than leave codex waiting.
                await self._send(
                    {"id": message["id"], "error": {"code": -32601, "message": "not supported"}}
                )
            elif "method" in message:
                async with self._changed:
                    self._notifications.append(message)
                    self._changed.notify_all()
            else:
                future = self._pending.get(message.get("id", -1))
                if future is not None and not future.done():
                    future.set_result(message)

    async def _read_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        with self.stderr_path.open("w", encoding="utf-8") as sink:
            async for raw in self._proc.stderr:
                line = raw.decode(errors="replace")
                sink.write(line)
                self.stderr_tail.append(line.rstrip())

    async def close(self) -> None:
        """Close stdin, wait, then SIGTERM and SIGKILL the process group."""
        proc = self._proc
        if proc is None:
            return
        if proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.close()
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, sig)
            try:
                await asyncio.wait_for(proc.wait(), EXIT_GRACE_S)
                break
            except TimeoutError:
                continue
        # The group may outlive its leader (helpers codex spawned): end it too.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._proc = None
