"""Fake codex-cli installs in a temporary cache, shaped as install_once leaves them."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from codex_probe.harness.codex.cache import MARKER
from codex_probe.harness.codex.install import BINARY_RELATIVE, LAST_USED

DAY = 86400.0
NOW = time.time()
CODEX_SHIM = "#!/bin/sh\n"


def fake_install(
    cache: Path,
    version: str,
    *,
    installed_at: float = NOW - 30 * DAY,
    last_used: float | None = None,
    data_bytes: int = 1000,
) -> Path:
    """A completed install as `install_once` leaves it, plus a data file of known size."""
    folder = cache / "codex" / version
    (folder / BINARY_RELATIVE).parent.mkdir(parents=True)
    (folder / BINARY_RELATIVE).write_text(CODEX_SHIM)
    (folder / "data.bin").write_bytes(b"x" * data_bytes)
    (folder / MARKER).write_text(json.dumps({"name": version}) + "\n")
    os.utime(folder / MARKER, (installed_at, installed_at))
    if last_used is not None:
        (folder / LAST_USED).touch()
        os.utime(folder / LAST_USED, (last_used, last_used))
    return folder
