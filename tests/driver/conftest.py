from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness.dispatcher import StartConfig
from codex_probe.harness.driver import CodexAppServerDriver
from codex_probe.harness.jsonrpc.client import JsonRpcClient

PEER = Path(__file__).with_name("peer.py")
WORK_DIR = "/tmp/agent-work"
BASE = "BASE: you are the probe agent."
DEVELOPER = "DEVELOPER: answer briefly."
FRESH_PROMPT = "REFERENCE MANUAL\n\nFRESH: hello"
RESUME_PROMPT = "WAKE: hello"

SpawnDriver = Callable[..., Awaitable[CodexAppServerDriver]]


def start_config(**changes: Any) -> StartConfig:
    """A StartConfig as the dispatcher would build it for codex, with test markers."""
    fields: dict[str, Any] = {
        "agent_id": "probe-agent",
        "base_instructions": BASE,
        "developer_instructions": DEVELOPER,
        "fresh_prompt": FRESH_PROMPT,
        "resume_prompt": RESUME_PROMPT,
        "work_dir": WORK_DIR,
        "permission_mode": "agent_workspace_write",
    }
    fields.update(changes)
    return StartConfig(**fields)


@pytest.fixture
async def spawn_driver() -> AsyncIterator[SpawnDriver]:
    """Drivers over scripted peers (peer.py); every peer is ended when the test ends."""
    clients: list[JsonRpcClient] = []

    async def start(
        *,
        threads: tuple[str, ...] = (),
        turn_seconds: float = 0.0,
        script: list[dict[str, Any]] | None = None,
        request_timeout: float = 5.0,
    ) -> CodexAppServerDriver:
        argv = [
            sys.executable,
            str(PEER),
            "--threads",
            ",".join(threads),
            "--turn-seconds",
            str(turn_seconds),
            "--script",
            json.dumps(script or []),
        ]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        client = await JsonRpcClient.spawn(argv, env=env)
        clients.append(client)
        return CodexAppServerDriver(client, request_timeout=request_timeout)

    yield start
    for client in clients:
        await client.close(grace=0.5)


def sent_texts(driver: CodexAppServerDriver) -> list[str]:
    """Every text the driver got accepted (outcome ok) into a turn, in order."""
    return [
        item["text"]
        for request in driver.requests
        if request.method in ("turn/start", "turn/steer") and request.outcome.value == "ok"
        for item in request.params["input"]
    ]
