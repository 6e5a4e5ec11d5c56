from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from codex_probe.fake_appserver.launcher import write_launcher
from codex_probe.fake_appserver.profile import PROFILES_DIR
from codex_probe.harness.codex.appserver import open_app_server
from codex_probe.harness.driver.params import text_input
from codex_probe.harness.jsonrpc.client import JsonRpcClient
from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.wiretap import Wiretap


@dataclass
class FakeProcesses:
    """A wiretap, an isolated home and fake app-server processes on them."""

    tap: Wiretap
    home: IsolatedHome
    launchers: Path
    transcript: Transcript = field(default_factory=Transcript)
    clients: list[JsonRpcClient] = field(default_factory=list)

    async def start(
        self, profile: str, *, script: str | None = None, initialize: bool = True
    ) -> JsonRpcClient:
        script_path = None
        self.launchers.mkdir(parents=True, exist_ok=True)
        if script is not None:
            script_path = self.launchers / f"script-{len(self.clients)}.jsonl"
            script_path.write_text(script)
        binary = write_launcher(
            self.launchers / str(len(self.clients)), profile=profile, script=script_path
        )
        client, _ = await open_app_server(
            binary,
            env=self.home.env(),
            cwd=self.home.workdir,
            transcript=self.transcript,
            initialize=initialize,
            timeout=20,
        )
        self.clients.append(client)
        return client

    async def new_thread(self, client: JsonRpcClient, **fields: Any) -> str:
        """thread/start in the session's work folder; the new thread's id."""
        started = await client.request("thread/start", {"cwd": str(self.home.workdir), **fields})
        thread_id: str = started["thread"]["id"]
        return thread_id

    async def turn(self, client: JsonRpcClient, thread_id: str, text: str) -> dict[str, Any]:
        await client.request(
            "turn/start", {"threadId": thread_id, "input": text_input(text)}, timeout=10
        )
        note = await client.wait_for_notification("turn/completed", timeout=15)
        turn: dict[str, Any] = note.params["turn"]
        return turn

    def last_input(self) -> list[dict[str, Any]]:
        body = self.tap.model_requests()[-1].body
        items: list[dict[str, Any]] = body["input"]
        return items


def copy_profile(version: str, folder: Path) -> Path:
    """A checked-in profile and its wire file, copied where a test may change them."""
    source = PROFILES_DIR / f"{version}.json"
    shutil.copy(source, folder / source.name)
    shutil.copy(PROFILES_DIR / f"wire-{version}.json", folder / f"wire-{version}.json")
    return folder / source.name


def edit(path: Path, change: Any) -> None:
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))


def texts(items: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """Each input message as (role, its texts)."""
    return [(i["role"], [c["text"] for c in i["content"]]) for i in items if i["type"] == "message"]


@pytest.fixture
async def fake(tmp_path: Path) -> AsyncIterator[FakeProcesses]:
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url, parent_dir=tmp_path) as home:
            session = FakeProcesses(tap=tap, home=home, launchers=tmp_path / "bin")
            try:
                yield session
            finally:
                for client in session.clients:
                    with contextlib.suppress(Exception):
                        await client.close(grace=1.0)
