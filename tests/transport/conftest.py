from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from codex_probe.harness.jsonrpc.client import JsonRpcClient

PEER = Path(__file__).with_name("peer.py")
SpawnPeer = Callable[..., Awaitable[JsonRpcClient]]


@pytest.fixture
async def spawn_peer() -> AsyncIterator[SpawnPeer]:
    """Start scripted peers; every one is shut down when the test ends, pass or fail."""
    clients: list[JsonRpcClient] = []

    async def start(*flags: str) -> JsonRpcClient:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        client = await JsonRpcClient.spawn([sys.executable, str(PEER), *flags], env=env)
        clients.append(client)
        return client

    yield start
    for client in clients:
        await client.close(grace=0.5)
