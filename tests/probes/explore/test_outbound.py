"""Where codex's outbound HTTP goes during an exploration: noted, and refused."""

from __future__ import annotations

import asyncio

from codex_probe.probes.explore.outbound import NO_PROXY, Outbound


async def ask(outbound: Outbound, request: bytes) -> bytes:
    host, port = outbound.url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(request)
    await writer.drain()
    answer = await reader.read()
    writer.close()
    await writer.wait_closed()
    return answer


def test_a_proxied_request_is_noted_by_method_and_host_and_refused() -> None:
    async def run() -> tuple[list[bytes], list[str]]:
        async with Outbound() as outbound:
            answers = [
                await ask(outbound, b"CONNECT chatgpt.com:443 HTTP/1.1\r\n\r\n"),
                await ask(outbound, b"GET http://example.com/a/secret-id HTTP/1.1\r\n\r\n"),
            ]
            return answers, outbound.asked

    answers, asked = asyncio.run(run())
    assert all(answer.startswith(b"HTTP/1.1 403 Forbidden") for answer in answers)
    assert asked == ["CONNECT chatgpt.com:443", "GET example.com"]


def test_the_proxy_variables_leave_the_loopback_addresses_direct() -> None:
    async def run() -> dict[str, str]:
        async with Outbound() as outbound:
            return outbound.env()

    env = asyncio.run(run())
    assert env["HTTPS_PROXY"] == env["https_proxy"] == env["ALL_PROXY"]
    assert env["HTTPS_PROXY"].startswith("http://127.0.0.1:")
    assert env["NO_PROXY"] == NO_PROXY and "127.0.0.1" in NO_PROXY
