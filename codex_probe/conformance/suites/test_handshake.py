"""The handshake and the end of a process: initialize, requests around it, stdin close."""

from __future__ import annotations

import asyncio

import pytest

from codex_probe.conformance.marks import check
from codex_probe.conformance.shapes import ALREADY_INITIALIZED, NOT_INITIALIZED, expect_refusal
from codex_probe.harness.codex.appserver import CLIENT_NAME, CLIENT_VERSION
from codex_probe.rig.session import Session

pytestmark = pytest.mark.asyncio

CLIENT_INFO = {"clientInfo": {"name": CLIENT_NAME, "version": CLIENT_VERSION}}
EXIT_GRACE_S = 5.0


@check(
    "CONF-HANDSHAKE-001",
    title="initialize answers with the server's user agent, then requests are served",
    protects="DESIGN 'Real components': every session starts with initialize + initialized",
)
async def test_initialize_names_the_server_version_and_then_requests_are_served(
    codex_session: Session,
) -> None:
    client = await codex_session.open(initialize=False)
    result = await client.request("initialize", CLIENT_INFO, timeout=codex_session.timeout)
    assert isinstance(result, dict), f"initialize answered {result!r}, not an object"
    assert codex_session.backend.version in str(result.get("userAgent")), result
    await client.notify("initialized")
    thread = await codex_session.start_thread()
    assert isinstance(thread.get("id"), str) and thread["id"]


@check(
    "CONF-HANDSHAKE-002",
    title="a request before initialize is refused with -32600 'Not initialized'",
    protects="driver transport: the handshake must precede thread/start (spec 4.6 startThread)",
)
async def test_a_request_before_initialize_is_refused_as_not_initialized(
    codex_session: Session,
) -> None:
    client = await codex_session.open(initialize=False)
    request = client.request(
        "thread/start", {"cwd": codex_session.workdir}, timeout=codex_session.timeout
    )
    await expect_refusal(request, NOT_INITIALIZED)


@check(
    "CONF-HANDSHAKE-003",
    title="a second initialize is refused with -32600 'Already initialized'",
    protects="driver transport: one handshake per process",
)
async def test_a_second_initialize_is_refused_as_already_initialized(
    codex_session: Session,
) -> None:
    client = await codex_session.open()
    await expect_refusal(
        client.request("initialize", CLIENT_INFO, timeout=codex_session.timeout),
        ALREADY_INITIALIZED,
    )


@check(
    "CONF-SHUTDOWN-001",
    title="closing stdin ends the server with exit code 0, no signal needed",
    protects="DESIGN 'Rules': shutdown closes stdin, waits, then signals; nothing outlives a test",
)
async def test_closing_stdin_ends_the_server_with_exit_code_zero(
    codex_session: Session,
) -> None:
    client = await codex_session.open()
    await codex_session.start_thread()
    process = client.server.process
    client.server.stdin.close()
    try:
        async with asyncio.timeout(EXIT_GRACE_S):
            await process.wait()
    except TimeoutError:
        raise AssertionError(
            f"the server was still running {EXIT_GRACE_S:g}s after its stdin closed"
        ) from None
    assert process.returncode == 0, f"exit code {process.returncode} after stdin closed"
