"""The environments of every process a run starts, read from /proc while it runs."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from tools.chaos import processes
from tools.chaos.context import RowDeadline, Run

POLL_S = 0.02


@dataclass(frozen=True)
class Environment:
    pid: int
    command: str
    entries: tuple[str, ...]


def _read(pid: int) -> tuple[str, ...] | None:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    return tuple(part.decode("utf-8", "replace") for part in raw.split(b"\0") if part)


def while_running(run: Run, seconds: float) -> list[Environment]:
    """Every descendant of this process seen while `run` runs (but `run` itself, whose
    environment is the caller's), with its environment as first read.

    A child caught between fork and exec still runs its parent's program with its
    parent's environment (the child's own comes with the exec): it is read once it runs
    a program of its own."""
    seen: dict[tuple[int, str], Environment] = {}
    ends = time.monotonic() + seconds
    while run.process.poll() is None:
        if time.monotonic() >= ends:
            raise RowDeadline(f"{run.name} did not end within {seconds:.0f}s")
        running = processes.running_descendants()
        commands = {one.pid: one.command for one in running}
        for one in running:
            key = (one.pid, one.command)
            if one.pid == run.pid or key in seen or commands.get(one.parent) == one.command:
                continue
            if entries := _read(one.pid):
                seen[key] = Environment(one.pid, one.command, entries)
        time.sleep(POLL_S)  # /proc gives no event for a new process
    return list(seen.values())
