"""Where installed codex-cli versions and their schemas are cached, and how it is locked."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

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
    """A cross-process lock on `path` (flock), released even if the holder dies."""
    path.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + timeout
    with path.open("a") as handle:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LockTimeout(f"{path} stayed locked for {timeout:.0f}s") from None
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
