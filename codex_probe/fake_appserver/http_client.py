"""Just enough HTTP/1.1 on asyncio streams for the fake to POST to its model provider.

aiohttp took longer to import than the rest of the fake's start-up together, and the
provider is a loopback server (the wiretap): one request per connection, a JSON body out,
the answer read as it arrives (Content-Length, chunked, or until the server closes).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

READ_SIZE = 64 * 1024
# A header or chunk-size line longer than this is no HTTP we speak.
LINE_LIMIT = 64 * 1024


class HttpError(Exception):
    """The server's answer is not HTTP/1.x as this client reads it."""


@dataclass
class Answer:
    """An answer whose status and headers are read; its body is read on demand."""

    status: int
    headers: dict[str, str]  # names lowercased
    _reader: asyncio.StreamReader

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body, in pieces as they arrive."""
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            while size := await self._chunk_size():
                yield await self._reader.readexactly(size)
                await self._reader.readexactly(2)  # the CRLF after each chunk
            while (await self._line()).strip():  # trailers, up to the blank line
                pass
        elif (length := self.headers.get("content-length")) is not None:
            remaining = _length(length)
            while remaining:
                piece = await self._reader.read(min(remaining, READ_SIZE))
                if not piece:
                    raise asyncio.IncompleteReadError(b"", remaining)
                remaining -= len(piece)
                yield piece
        else:
            while piece := await self._reader.read(READ_SIZE):
                yield piece

    async def lines(self) -> AsyncIterator[bytes]:
        """The body line by line (each with its newline, but perhaps the last)."""
        pending = b""
        async for piece in self.chunks():
            *complete, pending = (pending + piece).split(b"\n")
            for line in complete:
                yield line + b"\n"
        if pending:
            yield pending

    async def read(self) -> bytes:
        return b"".join([piece async for piece in self.chunks()])

    async def text(self) -> str:
        return (await self.read()).decode("utf-8", "replace")

    async def json(self) -> Any:
        return json.loads(await self.read())

    async def _chunk_size(self) -> int:
        line = await self._line()
        try:
            return int(line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise HttpError(f"a bad chunk size line: {line[:80]!r}") from None

    async def _line(self) -> bytes:
        return await self._reader.readuntil(b"\n")  # LimitOverrunError past LINE_LIMIT


@contextlib.asynccontextmanager
async def post_json(url: str, body: Any) -> AsyncIterator[Answer]:
    """POST `body` as JSON to an http(s) `url`; the answer, until the block ends."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HttpError(f"not an http(s) URL: {url}")
    secure = parts.scheme == "https"
    port = parts.port or (443 if secure else 80)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    payload = json.dumps(body).encode()
    head = (
        f"POST {target} HTTP/1.1\r\n"
        f"Host: {parts.netloc}\r\n"
        "Content-Type: application/json\r\n"
        "Accept: */*\r\n"
        f"Content-Length: {len(payload)}\r\n"
        "Connection: close\r\n"
        "\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection(
        parts.hostname, port, ssl=secure or None, limit=LINE_LIMIT
    )
    try:
        writer.write(head + payload)
        await writer.drain()
        yield await _read_head(reader)
    finally:
        # Closing (also on cancellation) hangs up: the server sees an abandoned request.
        writer.close()


async def _read_head(reader: asyncio.StreamReader) -> Answer:
    status_line = await reader.readuntil(b"\n")
    version, _, rest = status_line.decode("latin-1").partition(" ")
    code = rest.split(" ", 1)[0]
    if not version.startswith("HTTP/1.") or not code.isdigit():
        raise HttpError(f"not an HTTP/1.x status line: {status_line[:80]!r}")
    headers: dict[str, str] = {}
    while (line := await reader.readuntil(b"\n")).strip():
        name, sep, value = line.decode("latin-1").partition(":")
        if not sep:
            raise HttpError(f"a bad header line: {line[:80]!r}")
        headers[name.strip().lower()] = value.strip()
    return Answer(int(code), headers, reader)


def _length(value: str) -> int:
    if not value.strip().isdigit():
        raise HttpError(f"a bad Content-Length: {value!r}")
    return int(value)
