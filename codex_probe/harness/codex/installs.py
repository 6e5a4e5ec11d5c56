"""The codex-cli installs in the cache: what they cost on disk, and pruning the stale ones.

Each install is a few hundred MB, so a run over many releases keeps only a few: the
least recently used go first (`install()` stamps an install each time it hands it out).
Removal takes the same per-version lock as `install_once`, so it never races an
install of that version, and the in-use lock exclusively (`in_use.py`), so it never
removes an install a running process uses; an install disappears by one atomic rename.
"""

from __future__ import annotations

import contextlib
import enum
import os
import re
import secrets
import shutil
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from codex_probe.harness.codex import in_use
from codex_probe.harness.codex.cache import (
    MARKER,
    LockTimeout,
    exclusive_lock,
    is_installed,
    lock_path,
    versions_dir,
)
from codex_probe.harness.codex.install import BINARY_RELATIVE, LAST_USED

# `.<version>.partial-<x>` is an install_once build in progress or killed;
# `.<version>.trash-<x>` an install a prune moved aside and did not finish deleting.
LEFTOVER = re.compile(r"\.(?P<name>.+)\.(?:partial|trash)-[^/]+")


@dataclass(frozen=True)
class CachedInstall:
    version: str
    path: Path
    size_bytes: int
    last_used: float  # epoch seconds


class Removal(enum.Enum):
    """What became of an install a removal was asked for."""

    REMOVED = "removed"
    IN_USE = "in use by a running process"
    BUSY = "being installed or removed by another process"
    ABSENT = "not installed"


@dataclass(frozen=True)
class Kept:
    """An install a prune would have removed, and why it stayed."""

    install: CachedInstall
    why: Removal


@dataclass(frozen=True)
class Pruned:
    removed: list[CachedInstall]
    kept: list[Kept]


def list_installs(root: Path | None = None) -> list[CachedInstall]:
    """The completed installs under `root` (default: the cache), most recently used first.

    A missing cache is empty; a cache that cannot be read raises OSError.
    """
    versions = versions_dir(root)
    try:
        folders = sorted(versions.iterdir())
    except FileNotFoundError:
        return []
    installs = []
    for folder in folders:
        if folder.name.startswith(".") or not is_installed(folder, BINARY_RELATIVE):
            continue
        try:
            last_used = _last_used(folder)
        except OSError:
            continue  # removed since we listed it
        installs.append(CachedInstall(folder.name, folder, tree_size(folder), last_used))
    installs.sort(key=lambda install: install.last_used, reverse=True)
    return installs


def prune_installs(keep: int, *, protect: Collection[str] = (), root: Path | None = None) -> Pruned:
    """Remove the least recently used installs until at most `keep` remain; say which went
    and which stayed, and why.

    Protected versions, versions a running process uses, and versions whose install lock
    another process holds (an install or a prune of it in progress) stay; more recently
    used ones go in their place, and if too few can go, more than `keep` remain. Stale
    build and removal leftovers go too.
    """
    if keep < 0:
        raise ValueError(f"keep must be 0 or more, not {keep}")
    versions = versions_dir(root)
    installs = list_installs(root)
    excess = len(installs) - keep
    removed: list[CachedInstall] = []
    kept: list[Kept] = []
    for install in reversed(installs):
        if excess <= 0:
            break
        if install.version in protect:
            continue
        outcome = try_remove(install.version, root)
        if outcome is Removal.REMOVED:
            removed.append(install)
            excess -= 1
        elif outcome is not Removal.ABSENT:
            kept.append(Kept(install, outcome))
    _remove_leftovers(versions)
    return Pruned(removed, kept)


def _last_used(folder: Path) -> float:
    """The stamp's mtime; an install never handed out since the stamp existed: its marker's."""
    try:
        return (folder / LAST_USED).stat().st_mtime
    except FileNotFoundError:
        return (folder / MARKER).stat().st_mtime


def tree_size(folder: Path) -> int:
    total = 0
    for parent, _, files in os.walk(folder):  # does not descend into symlinked folders
        for name in files:
            with contextlib.suppress(OSError):  # a file removed while we walk
                total += os.lstat(os.path.join(parent, name)).st_size
    return total


def remove_install(version: str, root: Path | None = None) -> bool:
    """Delete the install of `version` unless it is in use, locked or gone; True if done."""
    return try_remove(version, root) is Removal.REMOVED


def try_remove(version: str, root: Path | None = None) -> Removal:
    """Delete the install of `version` unless another process uses it, installs or removes
    it, or it is gone; what became of it."""
    versions = versions_dir(root)
    with contextlib.ExitStack() as held:
        if not _lock_if_free(held, versions, version):
            return Removal.BUSY
        if not in_use.claim_for_removal(held, versions, version):
            return Removal.IN_USE
        folder = versions / version
        if not is_installed(folder, BINARY_RELATIVE):
            return Removal.ABSENT  # another prune removed it before we got the lock
        # The rename makes it vanish at once for `is_installed`; the slow delete comes after.
        trash = versions / f".{version}.trash-{secrets.token_hex(4)}"
        os.rename(folder, trash)
    # Deleted after the locks are let go: a user waiting for the in-use lock finds the
    # folder gone and installs it again, instead of waiting for this delete.
    shutil.rmtree(trash, ignore_errors=True)  # what stays is a leftover the next prune takes
    # The empty lock files stay: deleting one could let a process that is waiting on the
    # old file and a newcomer locking a new one install (or use) the same version at once.
    return Removal.REMOVED


def _remove_leftovers(versions: Path) -> None:
    for leftover in versions.glob(".*"):
        if not (match := LEFTOVER.fullmatch(leftover.name)):
            continue
        name = match["name"]
        with contextlib.ExitStack() as held:
            if _lock_if_free(held, versions, name):  # held: that build is still running
                shutil.rmtree(leftover, ignore_errors=True)


def _lock_if_free(held: contextlib.ExitStack, versions: Path, name: str) -> bool:
    """Take `name`'s install lock into `held` if nobody holds it; never wait for it."""
    try:
        held.enter_context(exclusive_lock(lock_path(versions, name), timeout=0))
    except LockTimeout:
        return False
    return True
