"""Failures of a JSON-RPC exchange, in two families that must never mix.

`ServerError`: the server answered with an error object. The outcome is known: the
request was received and refused. The driver's fallback policy may act on it.

`TransportError`: the exchange itself failed (deadline passed, pipe closed, process
exited, unreadable frame). The outcome is unknown: the server may or may not have
acted on the request. The driver must fail closed on these.
"""

from __future__ import annotations

from typing import Any

from codex_probe.harness.jsonrpc.framing import RequestId


class JsonRpcError(Exception):
    """Base of every error raised by the client."""


class ServerError(JsonRpcError):
    """The server answered a request with a JSON-RPC error object (outcome known)."""

    def __init__(
        self, *, method: str, request_id: RequestId, code: int, message: str, data: Any = None
    ) -> None:
        self.method = method
        self.request_id = request_id
        self.code = code
        self.message = message
        self.data = data
        super().__init__(f"{method} (id {request_id}) failed with error {code}: {message}")


class TransportError(JsonRpcError):
    """The exchange failed in transport; whether the server acted is unknown."""

    def __init__(self, summary: str, *, stderr_tail: str = "") -> None:
        self.summary = summary
        self.stderr_tail = stderr_tail
        text = summary
        if stderr_tail:
            text += "\n--- server stderr (tail) ---\n" + stderr_tail
        super().__init__(text)


class RequestTimeout(TransportError):
    """A request got no response before its deadline."""

    def __init__(
        self, *, method: str, request_id: RequestId, elapsed: float, stderr_tail: str
    ) -> None:
        self.method = method
        self.request_id = request_id
        self.elapsed = elapsed
        super().__init__(
            f"{method} (id {request_id}) got no response within {elapsed:.2f}s",
            stderr_tail=stderr_tail,
        )


class NotificationTimeout(TransportError):
    """An awaited notification did not arrive before its deadline."""

    def __init__(self, *, method: str, elapsed: float, stderr_tail: str) -> None:
        self.method = method
        self.elapsed = elapsed
        super().__init__(
            f"notification {method} did not arrive within {elapsed:.2f}s",
            stderr_tail=stderr_tail,
        )


def reason_in(stderr_tail: str) -> str:
    """The line of a dying server's stderr that says why: the last that names an error
    (`error: unexpected argument`, `Error: Cannot find module`, `ValueError: ...`), else
    its last line (`codex-probe seal: [Errno 2] ...`, `fake-codex: ...`)."""
    lines = [line.strip() for line in stderr_tail.splitlines() if line.strip()]
    named = [line for line in lines if line.lower().startswith("error") or "error:" in line]
    said = (named or lines or [""])[-1]
    return said if len(said) <= REASON_CHARS else said[: REASON_CHARS - 3] + "..."


REASON_CHARS = 300


class ServerExited(TransportError):
    """The server process exited (or closed its stdout) while requests were pending.

    A server that failed (a non-zero exit) says why in the summary too, with the line of
    its stderr that names the reason: a report that shows only the summary still has it.
    """

    def __init__(
        self,
        *,
        method: str | None,
        request_id: RequestId | None,
        returncode: int | None,
        stderr_tail: str,
    ) -> None:
        self.method = method
        self.request_id = request_id
        self.returncode = returncode
        what = f"{method} (id {request_id})" if method else "the connection"
        code = "still running, stdout closed" if returncode is None else f"exit code {returncode}"
        summary = f"server exited before answering {what} ({code})"
        if returncode not in (None, 0) and (reason := reason_in(stderr_tail)):
            summary += f": {reason}"
        super().__init__(summary, stderr_tail=stderr_tail)


class ConnectionClosed(TransportError):
    """A message could not be written because the client or the pipe is closed."""


class StdinClosed(ConnectionClosed):
    """A write found the server's stdin closed: the server is most likely exiting.

    The client waits briefly for that exit and raises ServerExited (its exit code and
    stderr) instead; this is what remains when the server lives on without its stdin.
    """


class MalformedFrame(TransportError):
    """A line on the server's stdout was not a JSON-RPC message.

    Pending requests fail with this because the unreadable line may have been their
    response; the reader itself goes on reading.
    """

    def __init__(
        self,
        *,
        line: bytes,
        reason: str,
        method: str | None = None,
        request_id: RequestId | None = None,
        stderr_tail: str = "",
    ) -> None:
        self.line = line
        self.reason = reason
        self.method = method
        self.request_id = request_id
        shown = line[:200].decode("utf-8", "replace")
        target = f" while {method} (id {request_id}) was pending" if method else ""
        super().__init__(
            f"malformed frame from server{target}: {reason}: {shown!r}", stderr_tail=stderr_tail
        )
