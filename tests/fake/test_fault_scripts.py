"""Each scripted fault does what the script says, seen through the harness client."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from codex_probe.fake_appserver.script import ScriptError, load_script
from codex_probe.harness.driver.params import text_input
from codex_probe.harness.jsonrpc.errors import (
    MalformedFrame,
    NotificationTimeout,
    RequestTimeout,
    ServerError,
    ServerExited,
)
from tests.fake.conftest import FakeProcesses

PROFILE = "0.171.0"


def rule(**fields: object) -> str:
    return json.dumps(fields) + "\n"


async def test_an_error_rule_answers_the_nth_call_with_that_error_only(fake: FakeProcesses) -> None:
    client = await fake.start(
        PROFILE,
        script=rule(
            method="thread/start", call=2, action="error", code=-32001, message="overloaded"
        ),
    )
    params = {"cwd": str(fake.home.workdir)}
    await client.request("thread/start", params)
    with pytest.raises(ServerError) as caught:
        await client.request("thread/start", params)
    assert (caught.value.code, caught.value.message) == (-32001, "overloaded")
    await client.request("thread/start", params)


async def test_a_hang_rule_never_answers(fake: FakeProcesses) -> None:
    client = await fake.start(PROFILE, script=rule(method="thread/start", action="hang"))
    with pytest.raises(RequestTimeout):
        await client.request("thread/start", {"cwd": str(fake.home.workdir)}, timeout=0.5)


async def test_a_delay_rule_answers_late(fake: FakeProcesses) -> None:
    client = await fake.start(
        PROFILE, script=rule(method="thread/start", action="delay", seconds=0.6)
    )
    started = time.monotonic()
    await client.request("thread/start", {"cwd": str(fake.home.workdir)}, timeout=10)
    assert time.monotonic() - started >= 0.6


async def test_a_crash_rule_exits_with_its_code_and_says_why_on_stderr(fake: FakeProcesses) -> None:
    client = await fake.start(
        PROFILE, script=rule(method="thread/start", action="crash", exit_code=42)
    )
    with pytest.raises(ServerExited) as caught:
        await client.request("thread/start", {"cwd": str(fake.home.workdir)}, timeout=10)
    assert caught.value.returncode == 42
    assert "crashing on thread/start (script line 1)" in str(caught.value)


async def test_a_malformed_rule_writes_a_frame_the_client_cannot_read(fake: FakeProcesses) -> None:
    client = await fake.start(PROFILE, script=rule(method="thread/start", action="malformed"))
    with pytest.raises(MalformedFrame):
        await client.request("thread/start", {"cwd": str(fake.home.workdir)}, timeout=10)


async def test_a_close_stdout_rule_ends_the_connection(fake: FakeProcesses) -> None:
    client = await fake.start(PROFILE, script=rule(method="thread/start", action="close_stdout"))
    with pytest.raises(ServerExited):
        await client.request("thread/start", {"cwd": str(fake.home.workdir)}, timeout=10)


async def test_a_vanish_rule_makes_the_thread_unknown_to_resume(fake: FakeProcesses) -> None:
    client = await fake.start(PROFILE, script=rule(method="thread/resume", action="vanish"))
    thread_id = (await client.request("thread/start", {"cwd": str(fake.home.workdir)}))["thread"][
        "id"
    ]
    with pytest.raises(ServerError) as caught:
        await client.request("thread/resume", {"threadId": thread_id})
    assert caught.value.message == f"no rollout found for thread id {thread_id}"


async def test_a_never_complete_rule_leaves_the_turn_running(fake: FakeProcesses) -> None:
    client = await fake.start(PROFILE, script=rule(method="turn/start", action="never_complete"))
    thread_id = (await client.request("thread/start", {"cwd": str(fake.home.workdir)}))["thread"][
        "id"
    ]
    await client.request("turn/start", {"threadId": thread_id, "input": text_input("x")})
    await client.wait_for_notification("turn/started", timeout=5)
    with pytest.raises(NotificationTimeout) as caught:
        await client.wait_for_notification("turn/completed", timeout=0.8)
    assert "turn/completed did not arrive" in str(caught.value)


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('{"method": "turn/start", "action": "explode"}', "unknown action 'explode'"),
        ('{"method": "turn/start", "action": "error", "code": 1}', "needs 'message'"),
        (
            '{"method": "turn/start", "action": "delay", "seconds": "soon"}',
            "'seconds' must be a finite number of 0 or more, got 'soon'",
        ),
        (
            '{"method": "turn/start", "action": "hang", "call": 0}',
            "'call' must be a positive integer",
        ),
        ('{"method": "turn/start", "action": "hang", "when": 1}', "unknown field(s) when"),
        ('{"method": "turn/start", "action": "hang"', "not JSON"),
        ('["turn/start"]', "a rule must be a JSON object"),
    ],
)
def test_a_broken_script_names_file_line_and_problem(
    tmp_path: Path,
    line: str,
    problem: str,
) -> None:
    script = tmp_path / "faults.jsonl"
    script.write_text('# comment\n{"method": "x", "action": "hang"}\n\n' + line + "\n")
    with pytest.raises(ScriptError) as caught:
        load_script(script)
    assert str(caught.value).startswith(f"{script}:4: ")
    assert problem in str(caught.value)


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        (
            '"action": "delay", "seconds": -1',
            "'seconds' must be a finite number of 0 or more, got -1",
        ),
        (
            '"action": "delay", "seconds": Infinity',
            "'seconds' must be a finite number of 0 or more, got inf",
        ),
        (
            '"action": "delay", "seconds": NaN',
            "'seconds' must be a finite number of 0 or more, got nan",
        ),
        (
            '"action": "delay", "seconds": true',
            "'seconds' must be a finite number of 0 or more, got True",
        ),
        (
            '"action": "crash", "exit_code": "boom"',
            "'exit_code' must be a whole number from 0 to 255, got 'boom'",
        ),
        (
            '"action": "crash", "exit_code": 1.5',
            "'exit_code' must be a whole number from 0 to 255, got 1.5",
        ),
        (
            '"action": "crash", "exit_code": 256',
            "'exit_code' must be a whole number from 0 to 255, got 256",
        ),
        (
            '"action": "crash", "exit_code": -1',
            "'exit_code' must be a whole number from 0 to 255, got -1",
        ),
    ],
)
def test_a_delay_or_exit_code_the_fake_cannot_carry_out_is_refused_on_load_at_its_line(
    tmp_path: Path,
    rule: str,
    problem: str,
) -> None:
    script = tmp_path / "faults.jsonl"
    script.write_text('{"method": "x", "action": "hang"}\n{"method": "turn/start", ' + rule + "}\n")
    with pytest.raises(ScriptError) as caught:
        load_script(script)
    assert str(caught.value) == f"{script}:2: {problem}"


def test_delays_of_zero_or_a_fraction_and_exit_codes_0_to_255_are_accepted(tmp_path: Path) -> None:
    script = tmp_path / "faults.jsonl"
    script.write_text(
        '{"method": "a", "action": "delay", "seconds": 0}\n'
        '{"method": "b", "action": "delay", "seconds": 0.25}\n'
        '{"method": "c", "action": "crash", "exit_code": 0}\n'
        '{"method": "d", "action": "crash", "exit_code": 255}\n'
        '{"method": "e", "action": "crash"}\n'
    )
    assert len(load_script(script).rules) == 5


async def test_the_fake_refuses_to_start_with_a_broken_script(fake: FakeProcesses) -> None:
    with pytest.raises(ServerExited) as caught:
        await fake.start(PROFILE, script='{"method": "x", "action": "nope"}\n')
    assert "script-0.jsonl:1: unknown action 'nope'" in str(caught.value)
