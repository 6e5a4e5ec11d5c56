"""What real codex-cli does with each kind of scripted reply (docs/observations/real-turns.md).

Every case of tests/rig/turns.py runs once per release on the real binary, with the
wiretap as its model and the session answering what codex asks. These tests are the
measurements the page and the checked-in profiles' `turns` sections cite.
"""

from __future__ import annotations

import re

import pytest

from tests.rig.turns import ESCALATED, REAL_RELEASES, TOOL_OUTPUT, TurnRun, observed

pytestmark = pytest.mark.real

EXEC_OUTPUT = re.compile(
    r"Chunk ID: [0-9a-f]{6}\nWall time: (?P<wall>\d+\.\d{4}) seconds\n"
    r"Process exited with code (?P<code>-?\d+)\nOriginal token count: (?P<tokens>\d+)\n"
    r"Output:\n(?P<output>.*)",
    re.DOTALL,
)
STREAM_ERRORS = {
    "failed": "stream disconnected before completion: scripted error from the wiretap",
    "cut": "stream disconnected before completion: stream closed before response.completed",
    "dropped": "stream disconnected before completion: Transport error: network error: "
    "error decoding response body",
}


@pytest.fixture(params=REAL_RELEASES)
def version(request: pytest.FixtureRequest) -> str:
    release: str = request.param
    return release


def real(tmp_path_factory: pytest.TempPathFactory, version: str, case: str) -> TurnRun:
    return observed(tmp_path_factory, "real", version, case)


def command_outcome(run: TurnRun) -> tuple[str, int | None, str]:
    """(status, exit code, output) of the run's one command, as its item/completed says.

    0.120.0 now and then never sends that notification for a command whose output
    streamed (outputDelta) after codex first looked (its wall time is not 0): then the
    outcome is read from the output codex sent the model, and the race is asserted."""
    completed = run.items("completed", "commandExecution")
    if completed:
        [item] = completed
        output = item["aggregatedOutput"]
        said = EXEC_OUTPUT.fullmatch(run.call_outputs().get("call_wiretap_0_0", ""))
        if said is not None and (output is None or _part_of(output, said["output"])):
            # Under load the output can come after codex first reads the command: the
            # item then completes without it (seen on 0.150.0), or without a late stream
            # (0.120.0 in a loaded CI run: `rc=1` without touch's error line); the model
            # still gets it whole.
            output = said["output"]
        return item["status"], item["exitCode"], output
    said = EXEC_OUTPUT.fullmatch(run.call_outputs()["call_wiretap_0_0"])
    assert said is not None and run.observation.version == "0.120.0"
    assert not said["wall"].startswith("0.0000"), "lost, yet its output came at once"
    code = int(said["code"])
    return ("completed" if code == 0 else "failed"), code, said["output"]


def _part_of(output: str, whole: str) -> bool:
    """Whether `output` is `whole` with some of its lines missing."""
    lines = whole.splitlines()
    return output != whole and all(line in lines for line in output.splitlines())


# The tools each release offers a model outside its catalog (the rig's `mock-model`).
OFFERED = {
    "0.120.0": "exec_command write_stdin update_plan request_user_input web_search view_image "
    "spawn_agent send_input resume_agent wait_agent close_agent",
    "0.150.0": "exec_command write_stdin update_plan request_user_input view_image "
    "multi_agent_v1 get_goal create_goal update_goal web_search",
    "0.171.0": "exec_command write_stdin request_user_input view_image multi_agent_v1 "
    "get_goal create_goal update_goal web_search",
}


def test_each_release_offers_exec_command_as_its_shell_tool_and_no_shell_or_shell_command(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    first = real(tmp_path_factory, version, "command").observation.requests[0]
    tools = first.body["tools"]
    assert [t.get("name", t["type"]) for t in tools] == OFFERED[version].split()


def test_an_exec_command_call_runs_and_its_output_reaches_the_next_model_request(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "command")
    [started] = run.items("started", "commandExecution")
    assert (started["id"], started["status"]) == ("call_wiretap_0_0", "inProgress")
    assert started["command"] == f"/bin/bash -lc 'echo {TOOL_OUTPUT}'"
    assert command_outcome(run) == ("completed", 0, f"{TOOL_OUTPUT}\n")
    first, second = run.model_inputs()
    assert [item["type"] for item in second[len(first) :]] == [
        "function_call",
        "function_call_output",
    ]
    output = EXEC_OUTPUT.fullmatch(run.call_outputs()["call_wiretap_0_0"])
    assert output is not None
    # The token count is the output's length in bytes divided by 4, rounded up.
    size = len(f"{TOOL_OUTPUT}\n")
    expected = {"code": "0", "tokens": str(-(-size // 4)), "output": f"{TOOL_OUTPUT}\n"}
    assert {k: v for k, v in output.groupdict().items() if k != "wall"} == expected
    assert [t["status"] for t in run.completed_turns()] == ["completed"]


def test_a_command_that_exits_non_zero_completes_its_item_as_failed_and_the_turn_goes_on(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "command-fails")
    assert command_outcome(run)[:2] == ("failed", 3)
    output = EXEC_OUTPUT.fullmatch(run.call_outputs()["call_wiretap_0_0"])
    assert output is not None and output["code"] == "3"
    assert [t["status"] for t in run.completed_turns()] == ["completed"]


def test_the_read_only_sandbox_refuses_a_write_in_the_work_folder(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "command-writes")
    output = command_outcome(run)[2]
    assert "Read-only file system" in output and "rc=1" in output
    assert run.files == []


def test_reasoning_is_an_item_and_goes_back_to_the_model_whole_next_turn(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "reasoning")
    [item] = run.items("completed", "reasoning")
    assert (item["summary"], item["content"]) == (["CODEX-PROBE-SUMMARY"], ["CODEX-PROBE-RAW"])
    [sent] = [i for i in run.model_inputs()[1] if i["type"] == "reasoning"]
    assert sent["summary"] == [{"type": "summary_text", "text": "CODEX-PROBE-SUMMARY"}]
    assert sent["content"] == [{"type": "reasoning_text", "text": "CODEX-PROBE-RAW"}]
    assert sent["encrypted_content"] == "ENCRYPTED"
    # 0.120.0 sends history items without their ids; later releases keep them.
    assert ("id" in sent) is (version != "0.120.0")


def test_several_messages_are_each_an_item_and_turn_completed_lists_the_last_or_none(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "messages")
    assert [i["text"] for i in run.items("completed", "agentMessage")] == ["one", "two", "three"]
    assert [p["delta"] for p in run.notifications("item/agentMessage/delta")] == ["tw", "o"]
    [turn] = run.completed_turns()
    listed = [item["text"] for item in turn["items"]]
    assert listed == ([] if version == "0.120.0" else ["three"])


@pytest.mark.parametrize("case", ["failed", "cut", "dropped"])
def test_a_stream_that_fails_fails_the_turn_with_system_error_and_keeps_what_it_streamed(
    tmp_path_factory: pytest.TempPathFactory, version: str, case: str
) -> None:
    run = real(tmp_path_factory, version, case)
    failed, after = run.completed_turns()
    assert failed["status"] == "failed"
    assert failed["error"]["message"] == STREAM_ERRORS[case]
    assert failed["error"]["codexErrorInfo"] == "other"
    assert failed["items"] == []
    [error] = run.notifications("error")
    assert (error["willRetry"], error["error"]) == (False, failed["error"])
    assert run.statuses() == ["active", "systemError", "active", "idle"]
    assert after["status"] == "completed"
    # The message streamed before the failure is in the next turn's history.
    next_input = run.model_inputs()[1]
    assistant = [i for i in next_input if i.get("role") == "assistant"]
    assert [part["text"] for i in assistant for part in i["content"]] == ["partial"]
    assert len(run.observation.requests) == 2  # no retry: the providers allow none


def test_a_call_in_a_stream_cut_off_is_aborted_by_0_120_and_run_by_later_releases(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "cut-call")
    output = run.call_outputs()["call_wiretap_0_0"]
    if version == "0.120.0":
        assert (run.items("started", "commandExecution"), output) == ([], "aborted")
    else:
        assert command_outcome(run)[:2] == ("completed", 0)
        assert output.endswith(f"Output:\n{TOOL_OUTPUT}\n")
    assert [t["status"] for t in run.completed_turns()] == ["failed", "completed"]


def test_a_call_of_a_tool_codex_does_not_have_is_answered_unsupported_without_an_item(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "unknown-tool")
    assert run.call_outputs() == {"call_wiretap_0_0": "unsupported call: codex_probe_no_such_tool"}
    assert [i["type"] for i in run.items("started", "commandExecution")] == []
    assert [t["status"] for t in run.completed_turns()] == ["completed"]


def test_a_call_whose_arguments_are_no_json_is_answered_with_the_parse_error_without_an_item(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "bad-arguments")
    output = run.call_outputs()["call_wiretap_0_0"]
    assert output == "failed to parse function arguments: expected ident at line 1 column 2"
    assert run.items("started", "commandExecution") == []
    assert [t["status"] for t in run.completed_turns()] == ["completed"]


def test_an_escalation_is_put_to_the_client_and_the_default_decline_goes_back_to_the_model(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "declined")
    [asked] = run.server_requests("item/commandExecution/requestApproval")
    assert asked["params"]["itemId"] == "call_wiretap_0_0"
    assert asked["params"]["reason"] == ESCALATED["justification"]
    [answer] = run.answers_sent()
    assert answer == {"id": asked["id"], "result": {"decision": "decline"}}
    assert [p["requestId"] for p in run.notifications("serverRequest/resolved")] == [asked["id"]]
    [completed] = run.items("completed", "commandExecution")
    assert (completed["status"], completed["exitCode"]) == ("declined", None)
    rejected = 'CreateProcess { message: "Rejected(\\"rejected by user\\")" }'
    expected = "exec_command failed" + (
        f" for `{completed['command']}`" if version != "0.171.0" else ""
    )
    assert run.call_outputs()["call_wiretap_0_0"] == f"{expected}: {rejected}"
    flags = [p["status"].get("activeFlags") for p in run.notifications("thread/status/changed")]
    assert flags == [[], ["waitingOnApproval"], [], None]
    assert run.files == []


def test_an_accepted_escalation_runs_the_command_outside_the_read_only_sandbox(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "accepted")
    [answer] = run.answers_sent()
    assert answer["result"] == {"decision": "accept"}
    assert command_outcome(run)[:2] == ("completed", 0)
    assert run.files == ["CODEX-PROBE-FILE"]


def test_0_120_runs_an_escalated_echo_without_asking_and_later_releases_ask(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "escalated-echo")
    asked = run.server_requests("item/commandExecution/requestApproval")
    if version == "0.120.0":
        assert (asked, command_outcome(run)[0]) == ([], "completed")
    else:
        assert (len(asked), command_outcome(run)[0]) == (1, "declined")


def test_the_untrusted_policy_puts_a_plain_write_to_the_client(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "untrusted")
    [asked] = run.server_requests("item/commandExecution/requestApproval")
    assert "reason" not in asked["params"]
    [completed] = run.items("completed", "commandExecution")
    assert completed["status"] == "declined"


def test_items_before_a_hold_are_reported_before_the_held_rest_is_released(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "held")
    order = [
        (entry.message["method"], entry.message["params"]["item"]["type"])
        for entry in run.observation.transcript.entries
        if entry.direction == "recv"
        and isinstance(entry.message, dict)
        and entry.message.get("method") == "item/completed"
    ]
    assert order[-2:] == [("item/completed", "reasoning"), ("item/completed", "agentMessage")]
    [turn] = run.completed_turns()
    assert turn["status"] == "completed"


def test_a_command_still_running_when_the_call_stops_waiting_completes_after_the_turn(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "slow-command")
    output = run.call_outputs()["call_wiretap_0_0"]
    assert EXEC_OUTPUT.fullmatch(output) is None  # no exit code yet: a session id instead
    [started] = run.items("started", "commandExecution")
    assert f"Process running with session ID {started['processId']}\n" in output
    assert output.endswith("Output:\nearly\n")
    [turn] = run.completed_turns()
    assert turn["status"] == "completed"
    [late] = run.items("completed", "commandExecution")
    methods = [
        e.message.get("method")
        for e in run.observation.transcript.entries
        if e.direction == "recv" and isinstance(e.message, dict)
    ]
    assert methods.index("turn/completed") < len(methods) - methods[::-1].index("item/completed")
    # 0.171.0's late item holds all the output; 0.120.0's and 0.150.0's now all of it, now
    # only what came after the call was answered (both seen in runs of this test).
    seen = {"early\nlate\n"} if version == "0.171.0" else {"early\nlate\n", "late\n"}
    assert late["aggregatedOutput"] in seen


def test_two_calls_in_one_response_run_at_once_and_go_back_in_the_order_of_the_calls(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "two-commands")
    started = [item["id"] for item in run.items("started", "commandExecution")]
    assert sorted(started) == ["call_wiretap_0_0", "call_wiretap_0_1"]
    follow_up = run.model_inputs()[1]
    kinds = [(i["type"], i.get("call_id")) for i in follow_up if "call_id" in i]
    assert kinds == [
        ("function_call", "call_wiretap_0_0"),
        ("function_call", "call_wiretap_0_1"),
        ("function_call_output", "call_wiretap_0_0"),
        ("function_call_output", "call_wiretap_0_1"),
    ]
    outputs = run.call_outputs()
    assert outputs["call_wiretap_0_0"].endswith("Output:\none\n")
    assert outputs["call_wiretap_0_1"].endswith("Output:\ntwo\n")


def test_the_item_of_a_command_that_runs_for_seconds_completes_after_0_120_which_may_lose_it(
    tmp_path_factory: pytest.TempPathFactory, version: str
) -> None:
    run = real(tmp_path_factory, version, "command-waits")
    [started] = run.items("started", "commandExecution")
    output = run.call_outputs()["call_wiretap_0_0"]
    assert output.endswith(
        f"Process exited with code 0\nOriginal token count: 6\nOutput:\n{TOOL_OUTPUT}\n"
    )
    assert run.notifications("item/commandExecution/outputDelta") != []
    completed = run.items("completed", "commandExecution")
    completed_ids = [item["id"] for item in completed]
    if version == "0.120.0":
        # A race of 0.120.0's own, not a rule: it loses the item/completed most of the time
        # (20 of 20 runs quiet, 9 of 10 at load 7 to 12: bench/turn_races.py), not always.
        assert completed_ids in ([], [started["id"]])
    else:
        assert completed_ids == [started["id"]]
    assert [t["status"] for t in run.completed_turns()] == ["completed"]
