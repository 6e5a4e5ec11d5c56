"""A record of both directions of a JSON-RPC exchange, as JSONL, secrets masked.

Each entry: `{"dir": "send"|"recv"|"malformed", "t": seconds since the transcript
began (monotonic), "msg": the message}`; a malformed frame keeps its text in `raw`.
Masking happens when an entry is recorded, so nothing unmasked is ever kept.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Direction = Literal["send", "recv", "malformed"]

MASK = "***"
_SECRET_KEY = re.compile(
    r"(api[_-]?key|secret|password|passwd|authorization|bearer|access[_-]?token|"
    r"refresh[_-]?token|id[_-]?token|auth[_-]?token|cookie)",
    re.IGNORECASE,
)
_SECRET_VALUE = re.compile(
    r"(sk-[A-Za-z0-9_\-]{8,}|Bearer\s+[A-Za-z0-9._\-]{8,}|eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9._\-]+)"
)


def mask_secrets(value: Any) -> Any:
    """A copy of `value` with secret-looking keys' values and token-shaped strings masked."""
    if isinstance(value, dict):
        return {
            key: (
                MASK
                if _SECRET_KEY.search(str(key)) and item not in (None, "")
                else mask_secrets(item)
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [mask_secrets(item) for item in value]
    if isinstance(value, str):
        return _SECRET_VALUE.sub(MASK, value)
    return value


@dataclass
class TranscriptEntry:
    direction: Direction
    time: float
    message: Any

    def to_json(self) -> dict[str, Any]:
        return {"dir": self.direction, "t": round(self.time, 6), "msg": self.message}


@dataclass
class Transcript:
    """An in-memory transcript, optionally mirrored line by line to a JSONL file."""

    path: Path | None = None
    entries: list[TranscriptEntry] = field(default_factory=list)
    _origin: float = field(default_factory=time.monotonic)

    def record(self, direction: Direction, message: Any) -> None:
        entry = TranscriptEntry(direction, time.monotonic() - self._origin, mask_secrets(message))
        self.entries.append(entry)
        if self.path is not None:
            with self.path.open("a", encoding="utf-8") as sink:
                sink.write(json.dumps(entry.to_json(), ensure_ascii=False) + "\n")

    def messages(self, direction: Direction | None = None) -> Iterator[Any]:
        return (e.message for e in self.entries if direction is None or e.direction == direction)

    def to_jsonl(self) -> str:
        return "".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n" for e in self.entries)

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_jsonl(), encoding="utf-8")
        return path


ENTRY_KEYS = ("dir", "t", "msg")


def read_transcript(path: Path) -> list[TranscriptEntry]:
    """Load a JSONL transcript; a bad line is a ValueError naming the file, line and problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 text (byte {error.start})") from None
    entries: list[TranscriptEntry] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entries.append(_entry(line))
        except ValueError as error:
            raise ValueError(f"{path}:{number}: not a transcript entry: {error}") from None
    return entries


def _entry(line: str) -> TranscriptEntry:
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON ({error.msg} at column {error.colno})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"a JSON object with {', '.join(ENTRY_KEYS)} expected")
    missing = [key for key in ENTRY_KEYS if key not in raw]
    if missing:
        keys = ", ".join(repr(key) for key in missing)
        raise ValueError(f"missing key{'s' if len(missing) > 1 else ''} {keys}")
    direction = raw["dir"]
    if direction not in ("send", "recv", "malformed"):
        raise ValueError(f"'dir' must be send, recv or malformed, got {direction!r}")
    seconds = raw["t"]
    if not isinstance(seconds, int | float) or isinstance(seconds, bool):
        raise ValueError(f"'t' must be a number of seconds, got {seconds!r}")
    return TranscriptEntry(direction, float(seconds), raw["msg"])
