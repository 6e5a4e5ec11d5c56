"""Which cached installs a running process uses: a shared lock its user keeps until it exits.

`codex-probe cache prune`, and the install budget of history and bisect, remove installs;
a probe running one of them must keep it (a removed install fails every later start of
codex with "Cannot find module"). So whoever resolves an install for use (`install()`,
`installed()`) takes a shared flock on `.<version>.in-use` beside it and keeps the
descriptor open for the rest of its life. The kernel drops the lock when the process ends,
by kill -9 too, so a lock never outlives its user and nothing needs cleaning up after one.
Removal tries an exclusive lock without waiting and leaves the install alone when it
cannot get one.

A process's own hold does not stop its own removal: the budget removes only installs its
run is done with, so `claim_for_removal` lets go of this process's hold first.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from pathlib import Path

from codex_probe.harness.files import inside

# A removal holds the exclusive lock only while it renames the folder away: milliseconds.
HOLD_TIMEOUT = 30.0
POLL_S = 0.02

_held: dict[Path, int] = {}  # lock file -> the descriptor this process keeps open
_held_lock = threading.Lock()


class InUseLockTimeout(TimeoutError):
    """A removal kept the install's in-use lock for longer than the deadline."""


def in_use_path(versions: Path, name: str) -> Path:
    return inside(versions, f".{name}.in-use")


def hold(versions: Path, name: str, *, timeout: float = HOLD_TIMEOUT) -> None:
    """Mark the install `name` in use by this process until it exits (or `release`).

    A cache where the lock file cannot be made is one nobody can remove installs from
    either (removal needs the same file), so that is no error.
    """
    path = in_use_path(versions, name)
    with _held_lock:
        if path in _held:
            return
    try:
        fd = _open(path)
    except OSError:
        return
    try:
        _lock_within(fd, path, timeout)
    except BaseException:
        os.close(fd)
        raise
    with _held_lock:
        if path in _held:  # another thread of ours held it meanwhile: one hold is enough
            os.close(fd)
        else:
            _held[path] = fd


def release(versions: Path, name: str) -> None:
    """End this process's hold on `name`, if it has one."""
    with _held_lock:
        fd = _held.pop(in_use_path(versions, name), None)
    if fd is not None:
        os.close(fd)  # closes the last descriptor of that open file: the lock goes with it


def held_here(versions: Path, name: str) -> bool:
    with _held_lock:
        return in_use_path(versions, name) in _held


def claim_for_removal(held: contextlib.ExitStack, versions: Path, name: str) -> bool:
    """Take `name`'s in-use lock exclusively into `held` if no other process uses it;
    never wait. This process's own hold ends first."""
    release(versions, name)
    try:
        fd = _open(in_use_path(versions, name))
    except OSError:
        return False  # cannot tell whether it is in use: keep it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return False
    except BaseException:
        os.close(fd)
        raise
    held.callback(os.close, fd)
    return True


def _open(path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    # O_CLOEXEC: a child (codex, npm) does not carry the hold; the process that chose the
    # install does, and ends its children before it exits.
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)


def _lock_within(fd: int, path: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise InUseLockTimeout(f"{path} stayed locked for {timeout:.0f}s") from None
            time.sleep(POLL_S)  # flock has no timed wait; a removal holds it for a rename
