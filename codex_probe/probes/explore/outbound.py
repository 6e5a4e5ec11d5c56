"""Where codex's outbound HTTP goes during an exploration: a loopback port that notes where
each request was going and refuses it.

The exploration's app-servers get `HTTP_PROXY`, `HTTPS_PROXY` and `ALL_PROXY` pointing
here and `NO_PROXY` for the loopback addresses (the wiretap stays reachable): an HTTP
client that honours the proxy variables (codex's reqwest clients do by default) asks this
port to `CONNECT chatgpt.com:443` or to `GET http://...`, is told 403, and the request
ends there. What was asked for (method and host, never the path: it may hold ids) is
recorded, so the exploration shows which calls tried to leave the machine.
"""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType
from typing import Self

LOOPBACK = "127.0.0.1"
FIRST_LINE_DEADLINE_S = 5.0
REFUSAL = b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
NO_PROXY = "127.0.0.1,localhost,::1"


class Outbound:
    """`async with Outbound() as outbound:` then give codex `outbound.env()`."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> Self:
        self._server = await asyncio.start_server(self._refuse, LOOPBACK, 0)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the outbound port is not open")
        port = self._server.sockets[0].getsockname()[1]
        return f"http://{LOOPBACK}:{port}"

    def env(self) -> dict[str, str]:
        """The proxy variables, in both spellings (clients read one or the other)."""
        names = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
        found = {spelling: self.url for name in names for spelling in (name, name.lower())}
        found.update({"NO_PROXY": NO_PROXY, "no_proxy": NO_PROXY})
        return found

    def since(self, mark: int) -> list[str]:
        return self.asked[mark:]

    async def _refuse(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(FIRST_LINE_DEADLINE_S):
                line = await reader.readline()
            self.asked.append(where_to(line.decode("latin-1")))
            writer.write(REFUSAL)
            await writer.drain()
        except (TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


def where_to(request_line: str) -> str:
    """`CONNECT host:443` or `GET host`: a proxied request's method and host."""
    parts = request_line.split()
    if len(parts) < 2:
        return request_line.strip() or "(nothing)"
    method, target = parts[0], parts[1]
    if method != "CONNECT" and "://" in target:
        target = target.split("://", 1)[1].split("/", 1)[0]
    return f"{method} {target}"
