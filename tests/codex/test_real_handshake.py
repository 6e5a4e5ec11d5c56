"""The foundation against a real codex-cli: handshake, thread/start, schema-valid transcript."""

from __future__ import annotations

import pytest

from codex_probe.harness.codex.appserver import open_app_server
from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.codex.transcripts import validate_transcript
from codex_probe.harness.codex.validator import MessageValidator
from codex_probe.harness.jsonrpc.errors import ServerError
from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.wiretap import Wiretap

pytestmark = pytest.mark.real


async def test_real_codex_initializes_starts_a_thread_and_every_message_fits_its_schema(
    default_codex: Installation,
) -> None:
    transcript = Transcript()
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url) as home:
            client, info = await open_app_server(
                default_codex.binary, env=home.env(), cwd=home.workdir, transcript=transcript
            )
            async with client:
                assert info is not None and default_codex.version in info["userAgent"]
                result = await client.request(
                    "thread/start",
                    {
                        "cwd": str(home.workdir),
                        "baseInstructions": "BASE",
                        "developerInstructions": "DEVELOPER",
                    },
                    timeout=60,
                )
                thread_id = result["thread"]["id"]
                started = await client.wait_for_notification("thread/started", timeout=30)
                assert started.params["thread"]["id"] == thread_id
            assert client.returncode == 0
            # Starting a thread asks nothing of the model.
            assert tap.model_requests() == []
    methods = [m.get("method") for m in transcript.messages("send")]
    assert methods == ["initialize", "initialized", "thread/start"]
    violations = validate_transcript(
        MessageValidator(ensure_schema(default_codex)), transcript.entries
    )
    assert violations == []


async def test_real_codex_answers_a_request_before_initialize_with_an_error(
    default_codex: Installation,
) -> None:
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url) as home:
            client, _ = await open_app_server(
                default_codex.binary, env=home.env(), cwd=home.workdir, initialize=False
            )
            async with client:
                with pytest.raises(ServerError) as caught:
                    await client.request("thread/start", {"cwd": str(home.workdir)}, timeout=30)
    assert "initialize" in caught.value.message.lower()
