"""Test the tests: broken fakes make the check meant to catch them fail, for the right reason.

Each case runs a few conformance checks in a child pytest against the fake with a
fault script and no baseline, then asserts which checks failed, with what, and
that the checks the fault does not touch still pass.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.rig.defaults import DEFAULT_TIMEOUT
from tests.conformance.runner import SUITES, Run, run_pytest

pytestmark = pytest.mark.real  # the fake needs the real version's schema from npm


def run_broken_fake(
    tmp_path: Path, rules: list[dict[str, object]], *checks: str, deadline: float = 3.0
) -> Run:
    script = tmp_path / "faults.jsonl"
    script.write_text("".join(json.dumps(rule) + "\n" for rule in rules), encoding="utf-8")
    selection = [arg for check in checks for arg in ("--codex-check", check)]
    return run_pytest(
        tmp_path,
        str(SUITES),
        "--codex-backend=fake",
        f"--codex-version={DEFAULT_CODEX_VERSION}",
        f"--codex-fake-script={script}",
        "--codex-baseline=none",
        f"--codex-timeout={deadline:g}",
        "--codex-lifecycle-examples=30",
        *selection,
    )


def test_a_server_that_crashes_at_start_fails_the_handshake_check_with_its_exit_code(
    tmp_path: Path,
) -> None:
    run = run_broken_fake(
        tmp_path,
        [{"method": "initialize", "action": "crash", "exit_code": 70}],
        "CONF-HANDSHAKE-001",
        "CONF-HANDSHAKE-002",
        "CONF-THREAD-START-001",
    )
    assert run.returncode == 1, run.output
    assert run.outcome("CONF-HANDSHAKE-001") == "failed", run.output
    assert "ServerExited" in run.message("CONF-HANDSHAKE-001")
    assert "initialize" in run.message("CONF-HANDSHAKE-001")
    assert "exit code 70" in run.message("CONF-HANDSHAKE-001")
    # Nothing that needs a handshake passes; a request before initialize never crashes it.
    assert run.outcome("CONF-THREAD-START-001") == "failed", run.output
    assert "exit code 70" in run.message("CONF-THREAD-START-001")
    assert run.outcome("CONF-HANDSHAKE-002") == "passed", run.output


def test_a_malformed_frame_fails_the_turn_check_and_the_server_wire_check_only(
    tmp_path: Path,
) -> None:
    run = run_broken_fake(
        tmp_path,
        [{"method": "turn/start", "action": "malformed"}],
        "CONF-TURN-001",
        "CONF-THREAD-START-001",
        "CONF-WIRE-SERVER-001",
        "CONF-WIRE-CLIENT-001",
    )
    assert run.returncode == 1, run.output
    assert run.outcome("CONF-TURN-001") == "failed", run.output
    assert "MalformedFrame" in run.message("CONF-TURN-001")
    assert run.outcome("CONF-WIRE-SERVER-001") == "failed", run.output
    assert "break the schema" in run.message("CONF-WIRE-SERVER-001")
    assert "server frame" in run.output
    assert run.outcome("CONF-WIRE-CLIENT-001") == "passed", run.output
    assert run.outcome("CONF-THREAD-START-001") == "passed", run.output


def test_a_turn_that_never_completes_fails_the_turn_order_check_by_its_deadline(
    tmp_path: Path,
) -> None:
    run = run_broken_fake(
        tmp_path,
        [{"method": "turn/start", "action": "never_complete"}],
        "CONF-TURN-001",
        "CONF-TURN-002",
        "CONF-THREAD-START-001",
    )
    assert run.returncode == 1, run.output
    assert run.outcome("CONF-TURN-002") == "failed", run.output
    assert "NotificationTimeout" in run.message("CONF-TURN-002")
    # The deadline is 3 s; the elapsed time it reports is measured, so a loaded machine
    # reads 3.02 s as well as 3.00 s.
    assert re.search(r"turn/completed did not arrive within 3\.\d\ds", run.message("CONF-TURN-002"))
    assert run.outcome("CONF-TURN-001") == "passed", run.output
    assert run.outcome("CONF-THREAD-START-001") == "passed", run.output


def test_an_overload_answer_to_resume_fails_the_resume_check_on_its_code_and_message(
    tmp_path: Path,
) -> None:
    overload = {"code": -32001, "message": "Server overloaded; retry later."}
    run = run_broken_fake(
        tmp_path,
        [{"method": "thread/resume", "action": "error", **overload}],
        "CONF-RESUME-001",
        "CONF-THREAD-START-001",
    )
    assert run.returncode == 1, run.output
    assert run.outcome("CONF-RESUME-001") == "failed", run.output
    assert "failed with error -32001: Server overloaded" in run.message("CONF-RESUME-001")
    assert run.outcome("CONF-THREAD-START-001") == "passed", run.output


def test_a_crash_in_a_lifecycle_prints_the_shortest_sequence_and_a_replay_command(
    tmp_path: Path,
) -> None:
    # The default deadline: only the crash may fail an example here, and 3 s per request
    # is short enough for a loaded machine's thread/start to fail one too (a second
    # distinct failure that hid the crash's message behind Hypothesis's exception group).
    run = run_broken_fake(
        tmp_path,
        [{"method": "thread/compact/start", "action": "crash", "exit_code": 71}],
        "CONF-LIFECYCLE-001",
        deadline=DEFAULT_TIMEOUT,
    )
    assert run.returncode == 1, run.output
    assert run.outcome("CONF-LIFECYCLE-001") == "failed", run.output
    assert "ServerExited" in run.message("CONF-LIFECYCLE-001")
    assert "exit code 71" in run.output
    steps = [line for line in run.output.splitlines() if line.lstrip("E ").startswith("state.")]
    calls = [line for line in steps if "state.compact(" in line]
    assert calls, run.output
    # Shrunk: a compaction right after the boot, nothing else of substance before it.
    assert not any("run_turn" in line or "restart" in line for line in steps), steps
    assert "Reproduce with: pytest " in run.output
    assert "--hypothesis-seed=" in run.output
    assert "--codex-fake-script" in run.output
