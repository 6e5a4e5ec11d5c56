"""The fake's HTTP client against the wiretap and against servers that answer by hand."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator

import pytest

from codex_probe.fake_appserver.http_client import HttpError, post_json
from codex_probe.rig.wiretap import Wiretap


async def test_a_streamed_answer_is_read_line_by_line_as_the_wiretap_sends_it() -> None:
    async with Wiretap(["hello"]) as tap, post_json(f"{tap.base_url}/responses", {"a": 1}) as reply:
        assert reply.status == 200
        lines = [line async for line in reply.lines()]
    events = [json.loads(line[5:]) for line in lines if line.startswith(b"data:")]
    assert events[-1]["type"] == "response.completed"
    assert any(
        e.get("item", {}).get("content") == [{"type": "output_text", "text": "hello"}]
        for e in events
    )
    [captured] = tap.requests
    assert (captured.method, captured.path, captured.body) == ("POST", "/v1/responses", {"a": 1})


async def test_a_json_answer_and_an_error_status_are_read_whole() -> None:
    async with Wiretap(compaction_output=[{"type": "compaction"}]) as tap:
        async with post_json(f"{tap.base_url}/responses/compact", {}) as reply:
            assert (reply.status, await reply.json()) == (200, {"output": [{"type": "compaction"}]})
        async with post_json(f"{tap.base_url}/nowhere", {}) as reply:
            assert reply.status == 404
            assert "no route for POST /v1/nowhere" in await reply.text()


async def serve_once(answer: bytes) -> AsyncIterator[str]:
    """A server that reads one request and answers `answer`, byte for byte, then hangs up."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(answer)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    async with server:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1/responses"


@pytest.fixture
async def chunked_url() -> AsyncIterator[str]:
    async for url in serve_once(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"6;ext=1\r\ndata: \r\n4\r\n{}\n\n\r\n0\r\nTrailer: x\r\n\r\n"
    ):
        yield url


async def test_a_chunked_answer_with_extensions_and_trailers_is_read(chunked_url: str) -> None:
    async with post_json(chunked_url, {}) as reply:
        assert [line async for line in reply.lines()] == [b"data: {}\n", b"\n"]


@pytest.fixture
async def until_close_url() -> AsyncIterator[str]:
    async for url in serve_once(b"HTTP/1.0 200 OK\r\nX-A: b\r\n\r\nall of it"):
        yield url


async def test_an_answer_without_a_length_is_read_until_the_server_hangs_up(
    until_close_url: str,
) -> None:
    async with post_json(until_close_url, {}) as reply:
        assert (reply.headers["x-a"], await reply.read()) == ("b", b"all of it")


@pytest.fixture
async def garbage_url() -> AsyncIterator[str]:
    async for url in serve_once(b"SSH-2.0-OpenSSH\r\n\r\n"):
        yield url


async def test_an_answer_that_is_not_http_is_an_http_error(garbage_url: str) -> None:
    with pytest.raises(HttpError, match=r"not an HTTP/1\.x status line"):
        async with post_json(garbage_url, {}):
            pass


async def test_a_port_nobody_listens_on_is_a_refused_connection() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ConnectionRefusedError):
        async with post_json(f"http://127.0.0.1:{port}/v1/responses", {}):
            pass
