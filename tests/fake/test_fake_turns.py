"""The fake carries out a scripted model's turn as its profile says the release does."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from codex_probe.fake_appserver import confine
from codex_probe.fake_appserver.profile import load_profile
from codex_probe.fake_appserver.turn_profile import TURN_TEMPLATES
from codex_probe.harness.jsonrpc.client import JsonRpcClient
from codex_probe.rig.replies import End, FunctionCall, Reply, exec_command
from tests.fake.conftest import FakeProcesses, copy_profile, edit

PROFILES = ("0.120.0", "0.171.0")
EXEC_OUTPUT = re.compile(
    r"Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\n"
    r"Process (exited with code (?P<code>-?\d+)|running with session ID (?P<session>\d+))\n"
    r"Original token count: (?P<tokens>\d+)\nOutput:\n(?P<output>.*)",
    re.DOTALL,
)


async def run_command(
    fake: FakeProcesses, client: JsonRpcClient, command: str, **thread: Any
) -> tuple[str, list[dict[str, Any]]]:
    """A turn whose model runs `command`: the output the fake sent back, and the items of
    the command's item/* notifications."""
    thread_id = await fake.new_thread(client, **thread)
    fake.tap.queue_replies(Reply(items=(exec_command(command),)), Reply(text="done"))
    await fake.turn(client, thread_id, "run it")
    output = fake.tap.call_output("call_wiretap_0_0")
    assert output is not None
    items = [
        n.params["item"]
        for n in client.notifications
        if n.method.startswith("item/") and n.params["item"]["type"] == "commandExecution"
    ]
    return output, items


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_command_runs_in_the_work_folder_and_its_output_goes_back_in_codex_s_words(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    output, items = await run_command(fake, client, "pwd; echo CODEX-PROBE-OUT")
    said = EXEC_OUTPUT.fullmatch(output)
    assert said is not None
    assert said["output"] == f"{fake.home.workdir}\nCODEX-PROBE-OUT\n"
    assert (said["code"], said["tokens"]) == ("0", str(-(-len(said["output"]) // 4)))
    started, completed = items
    assert started["status"] == "inProgress" and started["command"] == (
        "/bin/bash -lc 'pwd; echo CODEX-PROBE-OUT'"
    )
    assert (completed["status"], completed["exitCode"]) == ("completed", 0)
    assert completed["aggregatedOutput"] == said["output"]


async def test_a_read_only_sandbox_lets_a_command_write_nothing_and_reach_no_network(
    fake: FakeProcesses,
) -> None:
    client = await fake.start("0.171.0")
    port = fake.tap.port
    command = (
        "touch CODEX-PROBE-FILE; echo rc=$?; touch /tmp/codex-probe-escape; echo rc=$?; "
        f"(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null; echo net=$?"
    )
    output, _ = await run_command(fake, client, command)
    assert "Read-only file system" in output
    assert output.count("rc=1\n") == 2 and "rc=0" not in output  # neither file was made
    assert "net=1" in output
    assert list(fake.home.workdir.iterdir()) == []


async def test_a_workspace_write_sandbox_lets_a_command_write_its_work_folder_only(
    fake: FakeProcesses,
) -> None:
    client = await fake.start("0.171.0")
    command = "touch CODEX-PROBE-FILE; echo rc=$?; touch ../codex-probe-outside; echo rc=$?"
    output, _ = await run_command(fake, client, command, sandbox="workspace-write")
    assert "rc=0\n" in output and "rc=1\n" in output
    assert [p.name for p in fake.home.workdir.iterdir()] == ["CODEX-PROBE-FILE"]
    assert not (fake.home.workdir.parent / "codex-probe-outside").exists()


async def test_a_command_gets_the_fakes_path_home_and_locale_and_no_codex_home(
    fake: FakeProcesses,
) -> None:
    client = await fake.start("0.171.0")
    output, _ = await run_command(fake, client, "env")
    names = {line.split("=", 1)[0] for line in output.splitlines() if "=" in line}
    assert {"PATH", "HOME", "LANG", "TZ"} <= names
    assert "CODEX_HOME" not in names
    assert f"HOME={fake.home.home}" in output


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_command_still_running_when_the_call_stops_waiting_completes_after_the_turn(
    fake: FakeProcesses, profile: str, tmp_path: Path
) -> None:
    client = await fake.start(profile)
    thread_id = await fake.new_thread(client)
    # The command ends when the test says so, not after a sleep: on a loaded machine a
    # sleep of its own could end within the call's wait, or `early` come after it.
    go_on = tmp_path / "go-on"
    command = f"echo early; while [ ! -e {go_on} ]; do sleep 0.02; done; echo late"
    call = exec_command(command, yield_time_ms=1500)
    fake.tap.queue_replies(Reply(items=(call,)), Reply(text="done"))
    await fake.turn(client, thread_id, "run it")
    said = EXEC_OUTPUT.fullmatch(fake.tap.call_output("call_wiretap_0_0") or "")
    assert said is not None and said["output"] == "early\n" and said["session"]
    go_on.touch()
    late = await client.wait_for_notification(
        "item/completed",
        lambda n: n.params["item"]["type"] == "commandExecution",
        timeout=10,
    )
    assert late.params["item"]["aggregatedOutput"] == "early\nlate\n"
    assert late.params["item"]["processId"] == said["session"]


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (
            FunctionCall("codex_probe_no_such_tool", "{}"),
            "unsupported call: codex_probe_no_such_tool",
        ),
        (FunctionCall("exec_command", "not json"), "failed to parse function arguments: "),
    ],
)
async def test_a_call_the_fake_cannot_carry_out_is_answered_in_codex_s_words_without_an_item(
    fake: FakeProcesses, call: FunctionCall, expected: str
) -> None:
    client = await fake.start("0.171.0")
    thread_id = await fake.new_thread(client)
    fake.tap.queue_replies(Reply(items=(call,)), Reply(text="done"))
    await fake.turn(client, thread_id, "call it")
    assert (fake.tap.call_output("call_wiretap_0_0") or "").startswith(expected)
    assert not [
        n
        for n in client.notifications
        if n.method == "item/started" and n.params["item"]["type"] == "commandExecution"
    ]


@pytest.mark.parametrize(
    ("end", "message"),
    [
        (End.FAILED, "stream disconnected before completion: scripted error from the wiretap"),
        (End.CUT, "stream disconnected before completion: stream closed before response.completed"),
        (
            End.DROPPED,
            "stream disconnected before completion: Transport error: network error: "
            "error decoding response body",
        ),
    ],
)
async def test_a_stream_that_breaks_fails_the_turn_in_the_release_s_words(
    fake: FakeProcesses, end: End, message: str
) -> None:
    client = await fake.start("0.171.0")
    thread_id = await fake.new_thread(client)
    fake.tap.queue_replies(Reply(text="partial", end=end))
    turn = await fake.turn(client, thread_id, "hi")
    assert (turn["status"], turn["itemsView"], turn["items"]) == ("failed", "notLoaded", [])
    assert turn["error"] == {
        "message": message,
        "codexErrorInfo": "other",
        "additionalDetails": None,
        "misalignment": None,
    }
    [error] = [n.params for n in client.notifications if n.method == "error"]
    assert (error["error"], error["willRetry"]) == (turn["error"], False)


async def test_a_declined_command_is_not_run_and_the_rejection_goes_back_to_the_model(
    fake: FakeProcesses,
) -> None:
    client = await fake.start("0.171.0")
    asked: list[Any] = []

    async def decline(params: Any) -> Any:
        asked.append(params)
        return {"decision": "decline"}

    client.on_request("item/commandExecution/requestApproval", decline)
    output, items = await run_command(
        fake, client, "touch CODEX-PROBE-FILE", approvalPolicy="untrusted"
    )
    [params] = asked
    assert params["command"] == "/bin/bash -lc 'touch CODEX-PROBE-FILE'"
    assert params["proposedExecpolicyAmendment"] == ["touch", "CODEX-PROBE-FILE"]
    assert "reason" not in params
    assert [i["status"] for i in items] == ["inProgress", "declined"]
    assert (
        output
        == 'exec_command failed: CreateProcess { message: "Rejected(\\"rejected by user\\")" }'
    )
    assert list(fake.home.workdir.iterdir()) == []


async def test_0_120_runs_a_command_it_knows_safe_without_asking(fake: FakeProcesses) -> None:
    client = await fake.start("0.120.0")
    output, items = await run_command(fake, client, "echo hi", approvalPolicy="untrusted")
    assert [i["status"] for i in items] == ["inProgress", "completed"]
    assert output.endswith("Output:\nhi\n")


def test_a_profile_without_the_turns_section_borrows_the_nearest_checked_in_one_unmeasured(
    tmp_path: Path,
) -> None:
    path = copy_profile("0.171.0", tmp_path)
    edit(path, lambda document: document.update(version="0.150.0", turns=None))
    wire = tmp_path / "wire-0.171.0.json"
    edit(wire, lambda document: [document["templates"].pop(n) for n in TURN_TEMPLATES])
    profile = load_profile(path=path)
    lender = load_profile("0.120.0")  # the closest checked-in release below 0.150.0
    assert profile.lender is not None and profile.lender.version == "0.120.0"
    assert profile.turns.texts == lender.turns.texts
    entry = profile.turns.stream_failure
    assert (entry.value, entry.measured) == (lender.turns.stream_failure.value, False)
    assert "lent by profile 0.120.0" in entry.evidence
    assert profile.template("item_commandExecution") == lender.template("item_commandExecution")


def test_every_checked_in_profile_has_the_turns_section_and_its_templates() -> None:
    for version in PROFILES:
        profile = load_profile(version)
        assert profile.lender is None and profile.document.turns is not None, version


def test_the_confining_helper_refuses_a_command_line_it_cannot_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert confine.main(["--writable", "/tmp"]) == 2
    assert confine.main(["--nonsense", "x", "--", "true"]) == 2
    assert "usage: confine.py" in capsys.readouterr().err
