"""Files a reader may open at any moment: written aside, then renamed into place; and
JSON files read back with one line naming what was wrong and where."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def write_text_atomically(path: Path, text: str) -> None:
    """`path` holds the old text or the new one, never half of it (mode 0644)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, staging = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as sink:
            sink.write(text)
        os.chmod(staging, 0o644)
        os.replace(staging, path)
    except BaseException:
        Path(staging).unlink(missing_ok=True)
        raise


def write_json(path: Path, document: Any) -> None:
    write_text_atomically(path, json.dumps(document, indent=2) + "\n")


def read_json(path: Path, error: Callable[[str], Exception], what: str) -> Any:
    """The JSON document at `path`; else `error` raised with one line naming the file (and
    the line and column of bad JSON): `PATH: no such WHAT`, `PATH: cannot be read: ...`,
    `PATH:LINE:COL: not JSON: ...`."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except (OSError, UnicodeDecodeError) as failure:
        raise error(f"{path}: cannot be read: {failure}") from None
    except json.JSONDecodeError as failure:
        raise error(f"{path}:{failure.lineno}:{failure.colno}: not JSON: {failure.msg}") from None


class UnsafePathError(ValueError):
    """A name taken from data (a version, a release key, an assumption or finding id) that
    would lead outside the folder it was meant for."""


def plain_name(name: str) -> str:
    """`name` if it names one entry of a folder: not empty, not `.` or `..`, no `/`, `\\`
    or NUL; else UnsafePathError."""
    if name in ("", ".", "..") or any(bad in name for bad in ("/", "\\", "\0")):
        shown = repr(name if len(name) <= 40 else name[:40] + "...")
        raise UnsafePathError(f"{shown} is not a plain file name: it would leave its folder")
    return name


def inside(folder: Path, *names: str) -> Path:
    """`folder/names[0]/names[1]/...`, every name taken from data checked by plain_name: the
    one way a path is built from data, so that it stays inside `folder`."""
    path = folder
    for name in names:
        path = path / plain_name(name)
    return path
