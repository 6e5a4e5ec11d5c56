"""An app-server that fails at its start (a seal that could not be made, a binary that
rejects its command line) leaves its error text in the broken scenario, which is the
evidence of every finding that reads it."""

from __future__ import annotations

from pathlib import Path

from codex_probe.probes.domain.observation import ScenarioBroken
from codex_probe.probes.runner.scenarios import start_and_turns
from codex_probe.probes.runner.steps import run_scenario
from codex_probe.rig.backends import Backend

SEAL_ERROR = "codex-probe seal: [Errno 2] No such file or directory: 'codex-probe-x1'"


def failing_binary(folder: Path, stderr: str, code: int) -> Path:
    binary = folder / "codex"
    binary.write_text(f"#!/bin/sh\nprintf '%s\\n' \"{stderr}\" >&2\nexit {code}\n")
    binary.chmod(0o755)
    return binary


async def test_a_launch_that_exits_126_leaves_its_stderr_in_the_broken_scenario(
    tmp_path: Path,
) -> None:
    backend = Backend("fake", "0.171.0", failing_binary(tmp_path, SEAL_ERROR, 126), None)
    try:
        await run_scenario("start", start_and_turns, backend, work_dir=tmp_path)
    except ScenarioBroken as broken:
        failure, tail = str(broken), broken.stderr_tail
    else:
        raise AssertionError("a server that exits at once cannot run a scenario")
    assert "exit code 126" in failure
    assert SEAL_ERROR in failure
    assert SEAL_ERROR in tail
