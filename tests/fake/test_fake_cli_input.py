"""`fake-codex` on input a real codex takes in its stride: stdin at its end, global options
after the subcommand; a line that is no JSON-RPC message (the profile's answer, then the
next line); and bad input (a script value it cannot carry out, a usage error) as one line
on stderr with exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codex_probe.fake_appserver.cli import PROFILE_ENV, SCRIPT_ENV

INITIALIZE = {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t"}}}


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text(
        'model_provider = "mock"\n'
        "[model_providers.mock]\n"
        'name = "mock"\n'
        'base_url = "http://127.0.0.1:9/v1"\n'
    )
    return home


def fake_codex(
    codex_home: Path, *args: str, stdin: int | Path = subprocess.DEVNULL, shell_prefix: str = ""
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in (PROFILE_ENV, SCRIPT_ENV)}
    env["CODEX_HOME"] = str(codex_home)
    argv = [sys.executable, "-m", "codex_probe.fake_appserver", *args]
    if shell_prefix:  # e.g. `exec <&-`: a stdin that is not open at all
        argv = ["bash", "-c", f'{shell_prefix}; exec "$@"', "bash", *argv]
    if isinstance(stdin, Path):
        with stdin.open("rb") as source:
            return subprocess.run(
                argv, stdin=source, capture_output=True, text=True, env=env, timeout=30
            )
    return subprocess.run(argv, stdin=stdin, capture_output=True, text=True, env=env, timeout=30)


def answers(done: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    """What the fake wrote that answers a request (its notifications aside: a profile's
    startup notifications follow an initialize answer)."""
    written = [json.loads(line) for line in done.stdout.splitlines()]
    return [message for message in written if "method" not in message]


def requests_file(tmp_path: Path, *frames: dict[str, object]) -> Path:
    path = tmp_path / "requests.jsonl"
    path.write_text("".join(json.dumps(frame) + "\n" for frame in frames))
    return path


# ----- stdin at its end --------------------------------------------------------------------


def test_app_server_with_stdin_at_eof_exits_0_quietly_like_codex(codex_home: Path) -> None:
    done = fake_codex(codex_home, "app-server")  # stdin is /dev/null
    assert (done.returncode, done.stderr, done.stdout) == (0, "", "")


def test_app_server_with_stdin_closed_exits_0_quietly(codex_home: Path) -> None:
    done = fake_codex(codex_home, "app-server", shell_prefix="exec <&-")
    assert (done.returncode, done.stderr, done.stdout) == (0, "", "")


def test_app_server_reading_requests_from_a_file_answers_them_and_exits_0(
    codex_home: Path, tmp_path: Path
) -> None:
    done = fake_codex(codex_home, "app-server", stdin=requests_file(tmp_path, INITIALIZE))
    assert (done.returncode, done.stderr) == (0, "")
    [answer] = answers(done)
    assert answer["id"] == 1 and "fake-codex" in answer["result"]["userAgent"]


# ----- global options in either place -----------------------------------------------------


def user_agent(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    agent: str = answers(done)[0]["result"]["userAgent"]
    return agent


def test_profile_and_script_may_follow_app_server_as_codex_takes_global_options(
    codex_home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "faults.jsonl"
    script.write_text('{"method": "thread/start", "action": "hang"}\n')
    requests = requests_file(tmp_path, INITIALIZE)
    done = fake_codex(
        codex_home, "app-server", "--profile", "0.120.0", "--script", str(script), stdin=requests
    )
    assert "/0.120.0 (fake-codex)" in user_agent(done)


def test_a_script_given_after_app_server_is_the_one_that_runs(
    codex_home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "faults.jsonl"
    script.write_text('{"method": "initialize", "action": "crash", "exit_code": 7}\n')
    done = fake_codex(
        codex_home, "app-server", "--script", str(script), stdin=requests_file(tmp_path, INITIALIZE)
    )
    assert done.returncode == 7
    assert "crashing on initialize (script line 1)" in done.stderr


def test_an_option_after_app_server_wins_over_the_same_option_before_it(
    codex_home: Path, tmp_path: Path
) -> None:
    requests = requests_file(tmp_path, INITIALIZE)
    done = fake_codex(
        codex_home, "--profile", "0.171.0", "app-server", "--profile", "0.120.0", stdin=requests
    )
    assert "/0.120.0 (fake-codex)" in user_agent(done)
    before_only = fake_codex(codex_home, "--profile", "0.120.0", "app-server", stdin=requests)
    assert "/0.120.0 (fake-codex)" in user_agent(before_only)


# ----- the first request, answered before the server is loaded --------------------------


def test_requests_read_with_the_first_initialize_are_answered_after_it_in_order(
    codex_home: Path, tmp_path: Path
) -> None:
    listed = {"id": 2, "method": "thread/loaded/list", "params": {}}
    again = {"id": 3, "method": "initialize", "params": {"clientInfo": {"name": "t"}}}
    done = fake_codex(
        codex_home, "app-server", stdin=requests_file(tmp_path, INITIALIZE, listed, again)
    )
    assert (done.returncode, done.stderr) == (0, "")
    first, second, third = answers(done)
    assert first["id"] == 1 and "t/0.171.0 (fake-codex)" in first["result"]["userAgent"]
    assert second == {"id": 2, "result": {"data": [], "nextCursor": None}}
    assert third["id"] == 3 and third["error"]["message"] == "Already initialized"


def test_a_first_request_other_than_initialize_is_refused_as_before_initialize(
    codex_home: Path, tmp_path: Path
) -> None:
    listed = {"id": 1, "method": "thread/loaded/list", "params": {}}
    done = fake_codex(codex_home, "app-server", stdin=requests_file(tmp_path, listed, INITIALIZE))
    refused, initialized = answers(done)
    assert refused["id"] == 1 and refused["error"]["message"] == "Not initialized"
    assert initialized["id"] == 1 and "result" in initialized


def test_an_initialize_without_its_newline_at_the_end_of_stdin_is_answered(
    codex_home: Path, tmp_path: Path
) -> None:
    path = tmp_path / "requests.jsonl"
    path.write_text(json.dumps(INITIALIZE))
    done = fake_codex(codex_home, "app-server", stdin=path)
    [answer] = answers(done)
    assert answer["id"] == 1 and "result" in answer


# ----- a line that is no JSON-RPC message -------------------------------------------------


def unreadable_then_initialize(tmp_path: Path) -> Path:
    path = tmp_path / "requests.jsonl"
    path.write_text(f"}}{{ not json\n[1]\n{json.dumps(INITIALIZE)}\n")
    return path


def test_a_line_that_is_no_message_is_ignored_as_codex_ignores_it_and_the_next_is_answered(
    codex_home: Path, tmp_path: Path
) -> None:
    # Measured on 0.120.0 and 0.171.0: no answer; codex logs "Failed to deserialize
    # JSONRPCMessage: ..." on stderr and reads on.
    done = fake_codex(codex_home, "app-server", stdin=unreadable_then_initialize(tmp_path))
    assert done.returncode == 0
    [initialized] = answers(done)
    assert initialized["id"] == 1 and "result" in initialized
    logged = [line for line in done.stderr.splitlines() if "Failed to deserialize" in line]
    assert len(logged) == 2 and "not JSON" in logged[0]


# ----- bad input: one line, exit 2 --------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ('"action": "delay", "seconds": -1', "'seconds' must be a finite number of 0 or more"),
        ('"action": "delay", "seconds": Infinity', "'seconds' must be a finite number of 0 or"),
        ('"action": "crash", "exit_code": "x"', "'exit_code' must be a whole number from 0 to"),
        ('"action": "crash", "exit_code": 300', "'exit_code' must be a whole number from 0 to"),
    ],
)
def test_a_script_value_the_fake_cannot_carry_out_stops_it_at_start_in_one_line(
    codex_home: Path, tmp_path: Path, rule: str, problem: str
) -> None:
    script = tmp_path / "faults.jsonl"
    script.write_text('{"method": "initialize", ' + rule + "}\n")
    requests = requests_file(tmp_path, INITIALIZE)
    done = fake_codex(codex_home, "app-server", "--script", str(script), stdin=requests)
    assert done.returncode == 2
    assert done.stderr.startswith(f"fake-codex: {script}:1: {problem}")
    assert done.stderr.count("\n") == 1 and done.stdout == ""


def test_a_usage_error_of_fake_codex_is_one_line(codex_home: Path) -> None:
    done = fake_codex(codex_home, "app-server", "--listen")
    assert done.returncode == 2
    assert done.stderr == "fake-codex app-server: argument --listen: expected one argument\n"


@pytest.mark.parametrize("home", ["unset", "without a provider"])
def test_a_bad_script_is_reported_before_the_fake_asks_for_a_codex_home_or_a_provider(
    tmp_path: Path, home: str
) -> None:
    script = tmp_path / "faults.jsonl"
    script.write_text('{"method": "initialize", "action": "explode"}\n')
    env = {k: v for k, v in os.environ.items() if k not in (PROFILE_ENV, SCRIPT_ENV, "CODEX_HOME")}
    if home == "without a provider":
        env["CODEX_HOME"] = str(tmp_path / "empty-home")
        (tmp_path / "empty-home").mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "codex_probe.fake_appserver", "--script", str(script), "app-server"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"fake-codex: {script}:1: ")
    assert "explode" in done.stderr and done.stderr.count("\n") == 1
