"""A client's contract: recorded from a real client on one release, verified on others."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness.codex.schema_shapes import MethodShape
from codex_probe.probes.contracts.contract import (
    FORMAT,
    SCHEMA_FILE,
    Interaction,
    schema_text,
)
from codex_probe.probes.contracts.record import _process
from codex_probe.probes.contracts.verify import _against_schema
from tests.cli import codex_probe

CLIENT = str(Path(__file__).with_name("client.py"))
OLD, NEW = "0.120.0", "0.171.0"  # 0.143.0 retired approvalPolicy "on-failure"


def record(tmp_path: Path, version: str, *client_args: str, name: str = "c.json") -> Path:
    out = tmp_path / name
    done = codex_probe(
        "record", "--codex", version, "--out", str(out), "--", sys.executable, CLIENT,
        *client_args, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def verify(contract: Path, version: str, *more: str) -> Any:
    return codex_probe("verify", str(contract), "--codex", version, *more, timeout=600)


@pytest.fixture(scope="module")
def retired(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A client that sets approvalPolicy "on-failure", recorded on 0.120.0."""
    return record(tmp_path_factory.mktemp("contract"), OLD, "--policy", "on-failure")


@pytest.mark.real
def test_a_contract_holds_on_its_own_release_and_names_the_rule_where_a_later_one_breaks_it(
    retired: Path,
) -> None:
    contract = json.loads(retired.read_text())
    assert contract["format"] == FORMAT and contract["recorded_on"] == OLD
    start = contract["processes"][0]["interactions"][2]
    assert (start["method"], start["outcome"]) == ("thread/start", "answered")
    assert start["params"]["cwd"] == "<work>"  # the recording's folder, as a placeholder
    assert start["enum_values"] == {"approvalPolicy": ["on-failure"]}
    turn = contract["processes"][0]["interactions"][3]
    assert "turn/completed" in turn["notifications"]
    same = verify(retired, OLD)
    assert same.returncode == 0, same.stdout + same.stderr
    assert f"on codex-cli {OLD}: compatible" in same.stdout
    later = verify(retired, NEW, "--json")
    assert later.returncode == 1, later.stdout + later.stderr
    found = json.loads(later.stdout)
    assert found["answer"] == "breaking"
    started = found["interactions"][2]
    assert {
        "rule": "request-enum-value-removed",
        "severity": "ERR",
        "where": "params.approvalPolicy",
        "before": "on-failure",
        "after": None,
    } in started["rules"]
    assert "request-now-refused" in {rule["rule"] for rule in started["rules"]}


@pytest.mark.real
def test_a_client_that_takes_a_binary_path_finds_it_in_codex_probe_codex(tmp_path: Path) -> None:
    contract = record(tmp_path, NEW, "--by-variable")
    done = verify(contract, NEW)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.real
def test_can_i_upgrade_answers_for_one_client_across_a_range(retired: Path) -> None:
    done = codex_probe(
        "can-i-upgrade", "--contract", str(retired), "--from", "0.162.0", "--to", "0.162.1",
        timeout=900,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert (
        lines[0] == "can this client go from codex-cli 0.162.0 to 0.162.1? no (breaking on 0.162.1)"
    )
    assert any(x.startswith("  0.162.0: breaking: request-enum-value-removed") for x in lines)
    assert lines[-1] == "first breaking release in the range: 0.162.0"


@pytest.mark.real
def test_a_contract_naming_a_method_the_release_lacks_says_so_in_one_line_and_exits_1(
    retired: Path, tmp_path: Path
) -> None:
    contract = json.loads(retired.read_text())
    contract["processes"][0]["interactions"][2]["method"] = "thread/begin"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(contract))
    done = verify(edited, OLD)
    assert done.returncode == 1
    said = [line for line in done.stdout.splitlines() if "lacks" in line]
    assert said == [
        f"  codex-cli {OLD} lacks 1 method(s) the contract uses: thread/begin (method-removed)"
    ]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{", "not JSON"),
        ("{}", "not a contract (no 'processes'"),
        (json.dumps({"format": FORMAT + 1, "processes": []}),
         f"contract format {FORMAT + 1} is newer"),
        (
            json.dumps({"format": FORMAT, "processes": "x", "tool": "t", "recorded_on": "1",
                        "recorded_at": "t", "command": []}),
            "not a contract: Expected `array`, got `str` - at `$.processes`",
        ),
    ],
)  # fmt: skip
def test_a_file_that_is_not_a_contract_this_tool_reads_is_one_line_and_exit_2(
    tmp_path: Path, text: str, said: str
) -> None:
    path = tmp_path / "contract.json"
    path.write_text(text)
    done = codex_probe("verify", str(path), "--codex", NEW)
    assert done.returncode == 2
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.real
@pytest.mark.parametrize(
    ("client", "said"),
    [
        (["/no/such/client"], "cannot run /no/such/client"),
        ([sys.executable, "-c", "print('no codex here')"], "started no codex app-server"),
    ],
)
def test_a_client_that_leaves_nothing_to_record_writes_nothing_and_exits_3(
    tmp_path: Path, client: list[str], said: str
) -> None:
    out = tmp_path / "contract.json"
    done = codex_probe("record", "--codex", NEW, "--out", str(out), "--", *client)
    assert done.returncode == 3, done.stderr
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_record_without_a_command_is_a_usage_error(tmp_path: Path) -> None:
    done = codex_probe("record", "--out", str(tmp_path / "c.json"))
    assert done.returncode == 2 and "no client command" in done.stderr


def test_the_checked_in_schema_is_the_one_the_model_generates() -> None:
    assert SCHEMA_FILE.read_text() == schema_text()


def line(side: str, message: dict[str, Any]) -> dict[str, Any]:
    return {"from": side, "line": json.dumps(message)}


def test_a_log_becomes_interactions_with_ids_placeholders_and_codex_s_requests_answered() -> None:
    thread = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000"
    log = [
        {"args": ["app-server"]},
        line("client", {"id": 1, "method": "thread/start", "params": {"cwd": "/r/work/x"}}),
        line("codex", {"id": 1, "result": {"thread": {"id": thread, "status": {"type": "idle"}}}}),
        line("codex", {"method": "thread/started", "params": {"thread": {"id": thread}}}),
        line("codex", {"method": "warning", "params": {"message": "left out: not lifecycle"}}),
        line("codex", {"id": 0, "method": "item/tool/call", "params": {"threadId": thread}}),
        line("client", {"id": 0, "result": {"decision": "accept"}}),
        line("client", {"id": 2, "method": "turn/start", "params": {"threadId": thread}}),
        line("codex", {"id": 2, "error": {"code": -32600, "message": "no"}}),
    ]
    decision = {"decision": {"type": "string", "enum": ["accept", "decline"]}}
    schema = {
        "server request": {
            "item/tool/call": MethodShape(
                "server request",
                "item/tool/call",
                {},
                {"decision": {**decision, "type": "enum(accept|decline)", "required": True}},
            )
        }
    }
    process = _process(log, schema, {"/r/work": "<work>"})
    start, answer, turn = process.interactions
    assert start.params == {"cwd": "<work>/x"}
    assert start.ids == {"thread.id": thread}
    assert start.notifications == ["thread/started"]
    assert start.notification_ids == {"thread/started": {"thread.id": thread}}
    assert (answer.kind, answer.method, answer.answer) == (
        "answer",
        "item/tool/call",
        {"decision": "accept"},
    )
    assert answer.enum_values == {"decision": ["accept"]}
    assert answer.received == {"$": "object", "threadId": "string"}
    assert turn.outcome == "refused" and turn.refusal is not None and turn.refusal.code == -32600


def test_a_field_of_a_variant_is_required_only_of_a_client_that_sent_that_variant() -> None:
    fields = {
        "input": {"type": "array<object>", "required": True},
        "input[]<type=text>.type": {"type": "enum(text)", "required": True},
        "input[]<type=text>.text": {"type": "string", "required": True},
        "input[]<type=image>.type": {"type": "enum(image)", "required": True},
        "input[]<type=image>.url": {"type": "string", "required": True},
        "model": {"type": "string", "required": True},
    }
    schema = {
        "client request": {"turn/start": MethodShape("client request", "turn/start", fields, None)}
    }
    sent = Interaction(
        kind="request",
        method="turn/start",
        sent={"$": "object", "input": "array", "input[]": "object", "input[].type": "string",
              "input[].text": "string"},
        enum_values={"input[].type": ["text"]},
    )  # fmt: skip
    found = [(c.rule, c.where) for c in _against_schema(sent, schema)]
    assert found == [("request-required-field-added", "params.model")]


@pytest.mark.real
def test_record_json_names_the_contract_its_release_its_counts_and_the_clients_exit_code(
    tmp_path: Path,
) -> None:
    out = tmp_path / "c.json"
    done = codex_probe(
        "record", "--codex", "0.150.0", "--out", str(out), "--json", "--",
        sys.executable, CLIENT, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    answer = json.loads(done.stdout)  # the answer alone: what it says goes to stderr
    assert answer["contract"] == str(out) and out.is_file()
    assert answer["recorded_on"] == "0.150.0" and answer["client_exit_code"] == 0
    assert answer["processes"] >= 1 and answer["interactions"] >= 1
    assert "recorded " in done.stderr
