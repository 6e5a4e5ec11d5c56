"""Every process a row started, found even after their parent was killed outright.

The campaign makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER): a process
whose parent dies (a codex whose codex-probe got kill -9) is re-parented to the campaign,
not to init, so "nothing left running" is one walk of the campaign's own descendants in
/proc. Orphans that exit become the campaign's zombies, which it reaps.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
PROC = Path("/proc")
POLL_S = 0.05


@dataclass(frozen=True)
class Seen:
    pid: int
    parent: int
    state: str
    command: str

    @property
    def running(self) -> bool:
        return self.state not in ("Z", "X")


def become_subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(code)}")


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, state) of `pid`, or None if it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return int(fields[1]), fields[0]


def _command(pid: int) -> str:
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return "?"
    return " ".join(part.decode("utf-8", "replace") for part in raw.split(b"\0") if part)


def descendants(root: int | None = None) -> list[Seen]:
    """Every process below `root` (default: this one), running or a zombie."""
    root = os.getpid() if root is None else root
    children: dict[int, list[tuple[int, str]]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (found := _stat(int(entry.name))) is not None:
            parent, state = found
            children.setdefault(parent, []).append((int(entry.name), state))
    seen: list[Seen] = []
    todo = [root]
    while todo:
        parent = todo.pop()
        for pid, state in children.get(parent, []):
            seen.append(Seen(pid, parent, state, _command(pid)))
            todo.append(pid)
    return seen


def running_descendants() -> list[Seen]:
    return [one for one in descendants() if one.running]


def reap_orphans(own: set[int]) -> None:
    """Reap this process's zombie children that are not ones it waits for itself (`own`:
    the pids of its Popen objects, whose exit statuses subprocess must read)."""
    for one in descendants():
        if one.state == "Z" and one.parent == os.getpid() and one.pid not in own:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(one.pid, os.WNOHANG)


def left_running_after(seconds: float, own: set[int]) -> list[Seen]:
    """What still runs below this process once `seconds` have passed (or sooner, once
    nothing does)."""
    ends = time.monotonic() + seconds
    while True:
        reap_orphans(own)
        running = running_descendants()
        if not running or time.monotonic() >= ends:
            return running
        time.sleep(POLL_S)  # /proc gives no event for another process's exit


def kill_everything(own: set[int]) -> list[Seen]:
    """SIGKILL every running descendant; what there was to kill."""
    running = running_descendants()
    for one in running:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(one.pid, signal.SIGKILL)
    left_running_after(5.0, own)
    return running


def describe(processes: list[Seen], limit: int = 3) -> str:
    shown = [f"{one.pid} {one.command[:60]}" for one in processes[:limit]]
    more = f" (+{len(processes) - limit} more)" if len(processes) > limit else ""
    return "; ".join(shown) + more
