"""Every message the fake sends fits the imitated version's real schema, and the fake
stands in for the real binary in a program written for the real one."""

from __future__ import annotations

import contextlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from codex_probe.fake_appserver.launcher import launcher_options, warm_fake, write_launcher
from codex_probe.fake_appserver.profile import available_versions
from codex_probe.harness.codex.appserver import WarmLaunch, open_app_server
from codex_probe.harness.codex.install import install
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.codex.transcripts import validate_transcript
from codex_probe.harness.codex.validator import MessageValidator
from codex_probe.harness.driver.params import text_input
from codex_probe.harness.jsonrpc.errors import ServerError
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.wiretap import Reply, Wiretap
from tests.fake.conftest import FakeProcesses

pytestmark = pytest.mark.real


@pytest.mark.parametrize("profile", available_versions())
async def test_every_message_of_a_full_scenario_fits_the_real_schema(
    fake: FakeProcesses,
    profile: str,
) -> None:
    client = await fake.start(profile)
    cwd = str(fake.home.workdir)
    thread_id = (
        await client.request(
            "thread/start", {"cwd": cwd, "baseInstructions": "B", "developerInstructions": "D"}
        )
    )["thread"]["id"]
    await fake.turn(client, thread_id, "one")
    fake.tap.queue_replies(Reply(text="slow", delay_s=0.5))
    turn = (
        await client.request("turn/start", {"threadId": thread_id, "input": text_input("two")})
    )["turn"]
    await client.request(
        "turn/steer",
        {"threadId": thread_id, "expectedTurnId": turn["id"], "input": text_input("steer")},
    )
    await client.wait_for_notification("turn/completed", timeout=10)
    await client.request("thread/compact/start", {"threadId": thread_id})
    await client.wait_for_notification("turn/completed", timeout=10)
    fake.tap.queue_replies(Reply(text="slower", delay_s=2.0))
    turn = (
        await client.request("turn/start", {"threadId": thread_id, "input": text_input("three")})
    )["turn"]
    await client.request("turn/interrupt", {"threadId": thread_id, "turnId": turn["id"]})
    interrupted = await client.wait_for_notification("turn/completed", timeout=10)
    assert interrupted.params["turn"]["status"] == "interrupted"
    await client.request("thread/resume", {"threadId": thread_id, "baseInstructions": "B2"})
    await client.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    await client.request("thread/loaded/list", {})
    await client.request("model/list", {})
    for bad in ("not-a-uuid", "10192eed-8b3c-40de-bf2b-7a58e72ab0d1"):
        with pytest.raises(ServerError):
            await client.request("thread/resume", {"threadId": bad})
    await client.request("thread/unsubscribe", {"threadId": thread_id})
    validator = MessageValidator(ensure_schema(install(profile)))
    violations = validate_transcript(validator, fake.transcript.entries)
    assert [str(v) for v in violations] == []


async def start_turn_resume(
    binary: Path, tmp: Path, warm: WarmLaunch | None = None
) -> dict[str, Any]:
    """A program written for the real codex binary: start, turn, restart, resume."""
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url, parent_dir=tmp) as home:
            seen: dict[str, Any] = {}
            client, _ = await open_app_server(binary, env=home.env(), cwd=home.workdir, warm=warm)
            async with client:
                started = await client.request("thread/start", {"cwd": str(home.workdir)})
                thread_id = started["thread"]["id"]
                await client.request(
                    "turn/start", {"threadId": thread_id, "input": text_input("hi")}
                )
                done = await client.wait_for_notification("turn/completed", timeout=30)
                seen["turn_status"] = done.params["turn"]["status"]
                seen["start_keys"] = sorted(started)
            client, _ = await open_app_server(binary, env=home.env(), cwd=home.workdir, warm=warm)
            async with client:
                resumed = await client.request("thread/resume", {"threadId": thread_id})
                seen["resumed_turns"] = len(resumed["thread"]["turns"])
                seen["resume_keys"] = sorted(resumed)
                with contextlib.suppress(ServerError):
                    await client.request("thread/unsubscribe", {"threadId": thread_id})
            seen["model_requests"] = len(tap.model_requests())
    return seen


async def test_a_program_written_for_the_real_binary_runs_unchanged_on_the_fake(
    tmp_path: Path,
    default_codex: Any,
) -> None:
    real = await start_turn_resume(default_codex.binary, tmp_path)
    fake_binary = write_launcher(tmp_path / "fake-bin", profile=default_codex.version)
    fake = await start_turn_resume(fake_binary, tmp_path)
    assert real == fake
    assert fake["turn_status"] == "completed" and fake["resumed_turns"] == 1


async def test_the_fake_forked_from_its_warm_copy_runs_a_program_as_its_launcher_does(
    tmp_path: Path,
    default_codex: Any,
) -> None:
    forks = warm_fake()
    if forks is None:
        pytest.skip("this host cannot run a fork server")
    options = launcher_options(profile=default_codex.version)
    launcher = write_launcher(tmp_path / "fake-bin", profile=default_codex.version)
    execd = await start_turn_resume(launcher, tmp_path)
    forked = await start_turn_resume(launcher, tmp_path, WarmLaunch(forks, tuple(options)))
    assert forked == execd
    assert forked["turn_status"] == "completed" and forked["resumed_turns"] == 1


def test_the_launcher_runs_the_fake_it_was_written_for_whatever_the_callers_python_path(
    tmp_path: Path,
) -> None:
    # The launcher runs Python isolated and names the fake's folders itself: a module on
    # the caller's PYTHONPATH that would shadow the fake's (or its msgspec) is not seen.
    shadow = tmp_path / "shadow"
    for name in ("fake_appserver", "msgspec"):
        (shadow / name).mkdir(parents=True)
        (shadow / name / "__init__.py").write_text("raise ImportError('shadowed')\n")
    codex_home = tmp_path / "home"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        'model_provider = "m"\n[model_providers.m]\nbase_url = "http://127.0.0.1:9/v1"\n'
    )
    launcher = write_launcher(tmp_path / "bin", profile="0.171.0")
    request = {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t"}}}
    done = subprocess.run(
        [str(launcher), "app-server"],
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        env={"CODEX_HOME": str(codex_home), "PYTHONPATH": str(shadow), "PATH": "/usr/bin:/bin"},
        cwd=shadow,
        timeout=30,
    )
    assert (done.returncode, done.stderr) == (0, "")
    answer = json.loads(done.stdout.splitlines()[0])  # the profile's startup notices follow it
    assert "t/0.171.0 (fake-codex)" in answer["result"]["userAgent"]
