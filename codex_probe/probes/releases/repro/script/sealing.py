"""codex started sealed, as codex-probe starts it: with the seal.py shipped beside this script.

codex reads the host's system config (`/etc/codex`: a managed_config.toml there can even send its
model requests elsewhere) and looks for `.git` in every parent of its working directory. codex-probe
hides both from every app-server it starts; the bundle carries the very file that does it
(codex-probe's `codex_probe/harness/codex/seal.py`, standard library only), so a reproduction starts
codex under the same conditions as the recorded run. The file is loaded by its path (under `python3
-I -S` no sibling can be imported). Where the host cannot seal (no user namespaces, or not Linux),
or the file is missing or damaged, codex runs unsealed, and the report says so and why (and, from a
working seal.py, what codex could see).
"""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType
from typing import Any

from codex_probe.probes.releases.repro.script.bundled import load_bundled

SEAL_FILE = "seal.py"
SEAL_MODULE = "codex_probe_bundled_seal"


class Sealer:
    """Wraps each app-server command line in the bundle's seal, and remembers how."""

    def __init__(self, folder: Path) -> None:
        self.seal, self.unusable = _load_seal(folder / SEAL_FILE)
        self.sealing: dict[str, Any] | None = None  # how the last launch was made

    def wrap(self, argv: list[str], cwd: Path) -> list[str]:
        """The command line that runs `argv` sealed in `cwd`, or `argv` where none can."""
        if self.seal is None:
            self.sealing = {"sealed": False, "how": f"unsealed: {self.unusable}", "visible": []}
            return argv
        wrapped, sealing = self.seal.prepare(argv, os.path.realpath(cwd))
        self.sealing = sealing.to_json()
        return list(wrapped)


def _load_seal(path: Path) -> tuple[ModuleType | None, str]:
    """The seal module, or None and why it cannot be used."""
    module, why = load_bundled(path, SEAL_MODULE)
    if module is not None and not callable(getattr(module, "prepare", None)):
        return None, f"{path} has no prepare()"
    return module, why


def sealing_line(sealing: dict[str, Any] | None) -> str:
    """One line for the report: how codex was started, and what it could see if unsealed."""
    if sealing is None:
        return "sealing: codex was not started"
    if sealing["sealed"]:
        return f"sealed: {sealing['how']}"
    seen = f"; codex could see: {', '.join(sealing['visible'])}" if sealing["visible"] else ""
    return f"NOT SEALED ({sealing['how']}){seen}"
