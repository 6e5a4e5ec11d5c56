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
