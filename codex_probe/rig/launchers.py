"""Where a process keeps the fake launchers it writes, and for how long: its own lifetime.

A fake backend is a launcher file naming a profile and a fault script, often temporary
ones (a test's script, a learned profile in a scratch folder). Kept in the cache for good,
one launcher per such pair piled up: 1,239 folders on a development machine in one day,
about a hundred more with every run of the test suite, in a cache that CI keeps between
runs for its codex-cli installs. So each process writes its launchers into a folder of its
own under `<cache>/fake`, removed when the process exits. A process killed outright leaves
its folder behind; the next process to make one removes folders there untouched for a
week (a process refreshes its folder with every launcher it writes).

Not the system temp folder: a launcher is executed, and CI hosts often mount /tmp noexec.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
import time
from pathlib import Path

from codex_probe.harness.codex.cache import cache_root

LAUNCHERS = "fake"
STALE_AFTER_S = 7 * 24 * 3600


def launcher_folder() -> Path:
    """This process's launcher folder in the current cache (made on first use)."""
    folder = _folder_of(cache_root() / LAUNCHERS, os.getpid())
    folder.mkdir(parents=True, exist_ok=True)  # again, if the cache was emptied meanwhile
    os.utime(folder)  # in use: not stale
    return folder


@functools.cache
def _folder_of(parent: Path, pid: int) -> Path:
    # Keyed by pid too: a forked child makes its own instead of sharing (and removing)
    # its parent's.
    parent.mkdir(parents=True, exist_ok=True)
    remove_stale(parent, now=time.time())
    folder = Path(tempfile.mkdtemp(prefix=f"{pid}-", dir=parent))
    atexit.register(_remove_own, folder, pid)
    return folder


def remove_stale(parent: Path, *, now: float) -> None:
    """Remove the folders in `parent` untouched for STALE_AFTER_S (a killed process's)."""
    for entry in os.scandir(parent):
        try:
            if entry.is_dir(follow_symlinks=False) and now - entry.stat().st_mtime > STALE_AFTER_S:
                shutil.rmtree(entry.path, ignore_errors=True)
        except FileNotFoundError:  # another process removed it first
            continue


def _remove_own(folder: Path, pid: int) -> None:
    if os.getpid() == pid:
        shutil.rmtree(folder, ignore_errors=True)


def launcher_problem() -> str | None:
    """Why this process cannot write the fake's launchers (a read-only or full cache), in
    one line, or None: asked by a command before it starts a run that needs the fake."""
    try:
        launcher_folder()
    except OSError as error:
        return (
            f"the cache {cache_root()} cannot hold the fake's launchers: "
            f"{error.filename or ''}: {error.strerror or error}; give CODEX_PROBE_CACHE "
            "a folder this user may write"
        )
    return None
