"""Whether a command's --out folder can take what it will write: checked before any work.

The nearest part of the folder that exists must be a folder and writable (a folder with no
write permission counts as read-only even for root, who could write in it anyway), and no
file the command will write may be a folder already. Nothing is created by the check.
"""

from __future__ import annotations

import os
from pathlib import Path


def output_problem(out: Path, *files: str, under: str = "") -> str | None:
    """One line saying why `out` (or its subfolder `under`) cannot take `files`, or None."""
    folder = out / under if under else out
    try:
        for part in (folder, *folder.parents):
            if not (part.exists() or part.is_symlink()):
                continue
            where = f"--out {out}" if part == out else f"--out {out}: {part}"
            if not part.is_dir():
                what = "a file, not a folder" if part.is_file() else "not a folder"
                return f"{where} is {what}"
            if not _writable(part):
                return f"{where} is a read-only folder"
            break
        for name in files:
            target = folder / name
            if target.is_dir():
                return f"--out {out}: {target} is a folder, not a file"
    except OSError as error:  # e.g. a folder on the way that may not be searched
        return f"--out {out}: {error.filename}: {error.strerror}"
    return None


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK) and bool(folder.stat().st_mode & 0o222)
