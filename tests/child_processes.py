"""What the children of this test process run with: their command lines and environments,
read from /proc while they run (psutil is not a dependency: /proc/*/stat says who is whose
parent)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from codex_probe.harness import temp_folders

PROC = Path("/proc")
POLL_S = 0.005
# Names a secret goes by in CI and on a developer's machine. GITHUB_PAT says nothing of
# a secret in its name: only an allow-list keeps it from a child.
CANARY_NAMES = (
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_PAT",
    "CI_JOB_TOKEN",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "AWS_SECRET_ACCESS_KEY",
    "NPM_TOKEN",
    "NPM_CONFIG__AUTHTOKEN",
    "NPM_CONFIG_PASSWORD",
)


@dataclass(frozen=True)
class Seen:
    """One process as read from /proc: pid, what it ran and its environment."""

    pid: int
    exe: str
    cmdline: tuple[str, ...]
    environ: tuple[str, ...]

    def runs(self, word: str) -> bool:
        return word in self.exe or any(word in part for part in self.cmdline)


def plant_canaries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Put a secret-looking canary into this process's environment under every name a
    secret goes by; the values, which no child may ever hold."""
    values = []
    for name in CANARY_NAMES:
        value = f"canary-{name.lower()}-{uuid.uuid4().hex}"
        monkeypatch.setenv(name, value)
        values.append(value)
    return values


def parent_of(pid: int) -> int | None:
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last.
    return int(stat.rsplit(")", 1)[1].split()[1])


def descendants(root: int) -> list[int]:
    """Every process below `root`, found by walking /proc/*/stat."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (ppid := parent_of(int(entry.name))) is not None:
            children.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def read(pid: int) -> Seen | None:
    """`pid` as /proc shows it now, or None if it is gone, or exiting or a zombie with
    nothing left: a process caught after its memory is released still shows its `exe` but an
    empty command line, which would count as one more process."""
    folder = PROC / str(pid)
    try:
        exe = os.readlink(folder / "exe")
        cmdline = (folder / "cmdline").read_bytes().split(b"\0")
        environ = (folder / "environ").read_bytes().split(b"\0")
    except OSError:
        return None
    arguments = tuple(part.decode("utf-8", "replace") for part in cmdline if part)
    if not arguments:
        return None
    return Seen(
        pid, exe, arguments, tuple(part.decode("utf-8", "replace") for part in environ if part)
    )


def snapshot(root: int | None = None) -> list[Seen]:
    """Every live process below `root` (this test process by default)."""
    seen = (read(pid) for pid in descendants(os.getpid() if root is None else root))
    return [one for one in seen if one is not None]


def watch_while(
    action: Callable[[], object],
    *,
    deadline_s: float,
    until: Callable[[list[Seen]], bool] | None = None,
    then: Callable[[list[Seen]], None] | None = None,
) -> list[Seen]:
    """Run `action` in a thread and read every child of this process while it runs: until
    it ends, or until `until(seen)` holds, and then `then(seen)` is called (to end a child
    that would run on). Returns what was seen; re-raises what `action` raised unless
    `until` held (ending a child early makes its starter fail, as meant). Whatever was seen
    and still runs at the end is killed, whatever happened."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            action()
        except BaseException as error:
            failure.append(error)

    seen: dict[tuple[int, str, tuple[str, ...]], Seen] = {}
    running_before = set(descendants(os.getpid()))
    worker = threading.Thread(target=run, name="child-under-watch", daemon=True)
    worker.start()
    ends = time.monotonic() + deadline_s
    satisfied = False
    try:
        while worker.is_alive() and time.monotonic() < ends:
            for one in snapshot():
                seen.setdefault((one.pid, one.exe, one.cmdline), one)
            if until is not None and until(list(seen.values())):
                satisfied = True
                break
            time.sleep(POLL_S)
        if satisfied and then is not None:
            then(list(seen.values()))
        worker.join(timeout=max(1.0, ends - time.monotonic()))
    finally:
        # A launcher ended by its starter's deadline can leave its own child behind. What
        # ran before the action, and this process's janitor (started by the action's first
        # temporary folder, perhaps), are this process's own: killed, they would leave its
        # folders behind (harness/temp_folders.py).
        spared = running_before | _janitor_pids()
        kill_all([one for one in seen.values() if one.pid not in spared])
        worker.join(timeout=10)
    if worker.is_alive():
        raise AssertionError(f"the child did not end within {deadline_s:.0f}s")
    if not satisfied and failure:
        raise failure[0]
    return list(seen.values())


def _janitor_pids() -> set[int]:
    janitor = temp_folders._registry._janitor  # no public handle: tests only
    return set() if janitor is None else {janitor.pid}


def kill_all(processes: list[Seen]) -> None:
    """Kill each of `processes` that still runs what it ran when seen (not a reused pid)."""
    for one in processes:
        now = read(one.pid)
        if now is None or (now.exe, now.cmdline) != (one.exe, one.cmdline):
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(one.pid, signal.SIGKILL)


def leaked(processes: list[Seen], canaries: list[str]) -> list[str]:
    """`pid exe: NAME` for every canary found in any of `processes`' environments."""
    return [
        f"{one.pid} {one.exe}: {entry.split('=', 1)[0]}"
        for one in processes
        for entry in one.environ
        if any(canary in entry for canary in canaries)
    ]


# execs argv[1:] with SIGINT at its default action: an ignored signal stays ignored across
# exec, and a CI job started in the background without job control runs with SIGINT
# ignored, so a child sent Ctrl-C by a test would never see it.
_SIGINT_RESTORED = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)


def interruptible(argv: list[str]) -> list[str]:
    """`argv` run so that a SIGINT sent to it acts, whatever this process inherited."""
    return [sys.executable, "-c", _SIGINT_RESTORED, *argv]
