"""Files a reader may open at any moment: written aside, then renamed into place."""

from __future__ import annotations

import json
import os
import tempfile
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
