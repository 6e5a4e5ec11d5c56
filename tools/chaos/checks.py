"""What many rows check: an exit code, one line on stderr and no traceback, a verdict
file, and that a run left nothing behind (no process, no codex-probe home in TMPDIR)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tools.chaos import processes
from tools.chaos.context import Context, RowDeadline, Run

GONE_WITHIN_S = 5.0
POLL_S = 0.05


def exit_code(run: Run, wanted: int) -> list[str]:
    code = run.process.returncode
    return [] if code == wanted else [f"exit {code}, not {wanted}"]


# The progress of a first install from npm (harness/codex/progress.py), on stderr: a run
# from an empty cache prints it before its one line (0.80.0 gave three lines so).
PROGRESS = re.compile(
    r"installing .* \(once, into the cache\) \.\.\.|installed .*: \d+ MB in \d+ s"
)


def one_line(run: Run) -> list[str]:
    """Problems unless stderr is one line (besides an install's progress) and nothing
    printed a traceback."""
    problems = []
    lines = [line for line in run.stderr_lines() if not PROGRESS.fullmatch(line)]
    if len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr, not 1")
    if "Traceback" in run.stderr or "Traceback" in run.stdout:
        problems.append("a traceback")
    return problems


def last_line(run: Run) -> str:
    """The last line on stderr (the one that says why, after any traceback)."""
    lines = run.stderr_lines()
    return lines[-1][:160] if lines else "(nothing on stderr)"


def left_nothing(ctx: Context, within: float = GONE_WITHIN_S) -> list[str]:
    """Problems unless nothing of the row runs any more (after `within`) and no
    codex-probe home is left in its TMPDIR."""
    problems = []
    if running := ctx.left_running(within):
        problems.append(f"{len(running)} process(es) left running: {processes.describe(running)}")
    if homes := ctx.homes_left():
        problems.append(f"{len(homes)} codex-probe-* folder(s) left in TMPDIR")
    return problems


def verdict_file(out: Path) -> dict[str, Any] | None:
    try:
        document: dict[str, Any] = json.loads((out / "verdict.json").read_text())
    except (OSError, ValueError):
        return None
    return document


def findings(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every finding of every version, by `version:id`."""
    return {
        f"{version}:{finding}": entry
        for version, per in document.get("versions", {}).items()
        for finding, entry in per.items()
    }


def broken(document: dict[str, Any]) -> list[str]:
    return [key for key, entry in findings(document).items() if entry["verdict"] == "broken"]


def incomplete_verdict(out: Path) -> list[str]:
    """Problems unless verdict.json says the run is incomplete and lists what is missing."""
    document = verdict_file(out)
    if document is None:
        return ["no verdict.json"]
    if document.get("complete", True) or not document.get("missing"):
        return ["verdict.json does not say the run is incomplete"]
    return []


def wait_until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    ends = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= ends:
            raise RowDeadline(f"{what} did not happen within {seconds:.0f}s")
        time.sleep(POLL_S)  # /proc and files give no event to wait on


def app_servers_running() -> bool:
    return any("app-server" in one.command for one in processes.running_descendants())
