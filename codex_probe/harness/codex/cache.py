"""Where installed codex-cli versions and their schemas are cached, and how it is locked."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import filelock

from codex_probe.harness.files import inside

CACHE_ENV = "CODEX_PROBE_CACHE"


def cache_root() -> Path:
    """$CODEX_PROBE_CACHE, else $XDG_CACHE_HOME/codex-probe, else ~/.cache/codex-probe."""
    if configured := os.environ.get(CACHE_ENV):
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "codex-probe"


def versions_dir(root: Path | None = None) -> Path:
    return (root or cache_root()) / "codex"


class LockTimeout(TimeoutError):
    """Another process held the cache lock for longer than the deadline."""


@contextlib.contextmanager
def exclusive_lock(path: Path, *, timeout: float = 900.0) -> Iterator[None]:
    """A cross-process lock on `path` (flock), released even if the holder dies.

    A `timeout` of 0 tries once. The lock file is never deleted (installs.py relies on it).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    # preserve_lock_file: the file outlives every hold, so a waiter and a newcomer lock the
    # same inode; on a filesystem without flock it fails instead of falling back to a
    # marker file that is deleted on release.
    lock = filelock.FileLock(path, preserve_lock_file=True, poll_interval=0.2)
    try:
        lock.acquire(timeout=timeout)
    except filelock.Timeout:
        raise LockTimeout(f"{path} stayed locked for {timeout:.0f}s") from None
    try:
        yield
    finally:
        lock.release()


MARKER = "installed.json"


def lock_path(parent: Path, name: str) -> Path:
    """The lock `install_once` holds while it builds `parent/name`; pruning takes it too."""
    return inside(parent, f".{name}.lock")


def is_installed(folder: Path, needed: Path) -> bool:
    """A folder `install_once` completed, still holding the file that matters in it."""
    return (folder / MARKER).is_file() and (folder / needed).exists()


def install_once(parent: Path, name: str, build: Callable[[Path], None], needed: Path) -> Path:
    """`parent/name`, built by `build(staging)` once, safely across processes.

    The build happens in a private folder that becomes `parent/name` only by an atomic
    rename after `build` returned, so an interrupted build is never used; a lock per
    name makes a concurrent caller wait and then find the finished folder.
    """
    final = inside(parent, name)
    if is_installed(final, needed):
        return final
    with exclusive_lock(lock_path(parent, name)):
        if is_installed(final, needed):
            return final  # another process finished it while we waited
        for leftover in parent.glob(f".{name}.partial-*"):  # a killed build's; we hold the lock
            shutil.rmtree(leftover, ignore_errors=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{name}.partial-", dir=parent))
        try:
            build(staging)
            (staging / MARKER).write_text(json.dumps({"name": name}) + "\n")
            if final.exists():  # a broken earlier build without its marker
                shutil.rmtree(final)
            os.rename(staging, final)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return final
