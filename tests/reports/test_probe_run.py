"""The probe run the gate starts: its exit code passes through, its deadline ends it all."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from codex_probe.reporting.probe_run import ProbeRunTimeout, probe_command, run_probes


def running(pid: int) -> bool:
    """Alive and not a zombie waiting for a parent that is gone."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def test_the_probe_command_names_every_version_and_the_verdict_folder(tmp_path: Path) -> None:
    command = probe_command(["0.120.0", "0.171.0"], tmp_path)
    assert command[:3] == [sys.executable, "-m", "codex_probe.cli"]
    assert command[3:] == [
        "probe",
        "--codex",
        "0.120.0",
        "--codex",
        "0.171.0",
        "--out",
        str(tmp_path),
    ]


def test_the_exit_code_of_the_run_passes_through() -> None:
    assert run_probes([sys.executable, "-c", "raise SystemExit(3)"], timeout=30) == 3


def test_a_run_past_its_deadline_is_ended_with_everything_it_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    script = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(120)\n"
    )
    started = time.monotonic()
    with pytest.raises(ProbeRunTimeout, match="did not finish within 3s and was ended"):
        run_probes([sys.executable, "-c", script], timeout=3)
    assert time.monotonic() - started < 20
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while running(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(grandchild)
