"""A record of both directions of a JSON-RPC exchange, as JSONL, secrets masked.

Each entry: `{"dir": "send"|"recv"|"malformed", "t": seconds since the transcript
began (monotonic), "msg": the message}`; a malformed frame keeps its text in `raw`.
Masking happens when an entry is recorded, so nothing unmasked is ever kept.

A message recorded from its wire text (`record_wire`) is checked for anything masking
could touch; one that has nothing of the kind (most of them) is kept as that text and
decoded when it is first read, so recording costs no copy of the message. One that might
hold a secret is decoded and masked at once, like any other.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from codex_probe.harness.jsonrpc.framing import decode_json

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
# In lowercase ASCII wire text, every match of either pattern above contains one of these:
# a key's or a token's letters are never escaped in JSON text unless as \uXXXX, which is
# itself on the list. (The key words are shortened to a part every spelling shares.)
_SECRET_HINTS = (
    "\\u",
    "api_key",
    "api-key",
    "apikey",
    "secret",
    "passw",
    "authorization",
    "bearer",
    "token",
    "cookie",
    "sk-",
    "eyj",
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


def needs_masking(text: str) -> bool:
    """Whether masking the JSON `text` decodes to might change anything.

    False only when it surely would not: ASCII text with none of the hints. (Outside
    ASCII, case-insensitive matching folds letters such as U+017F into ASCII ones, so
    such text is always masked the slow way.)
    """
    if not text.isascii():
        return True
    lowered = text.lower()
    # A plain loop: any() over a generator costs twice as much.
    for hint in _SECRET_HINTS:  # noqa: SIM110
        if hint in lowered:
            return True
    return False


class TranscriptEntry:
    """One recorded message: its direction, its time and the message (secrets masked)."""

    __slots__ = ("_message", "_wire", "direction", "time")

    def __init__(self, direction: Direction, time: float, message: Any) -> None:
        self.direction = direction
        self.time = time
        self._message = message
        self._wire: str | None = None

    @classmethod
    def from_wire(cls, direction: Direction, time: float, text: str) -> TranscriptEntry:
        """An entry of a message kept as its JSON text, which needs no masking."""
        entry = cls(direction, time, None)
        entry._wire = text
        return entry

    @property
    def message(self) -> Any:
        if self._wire is not None:
            self._message, self._wire = decode_json(self._wire), None
        return self._message

    def to_json(self) -> dict[str, Any]:
        return {"dir": self.direction, "t": round(self.time, 6), "msg": self.message}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TranscriptEntry):
            return NotImplemented
        return (self.direction, self.time, self.message) == (
            other.direction,
            other.time,
            other.message,
        )

    __hash__ = None  # type: ignore[assignment]  # equal entries may hold unhashable messages

    def __repr__(self) -> str:
        return f"TranscriptEntry({self.direction!r}, {self.time!r}, {self.message!r})"


@dataclass
class Transcript:
    """An in-memory transcript, optionally mirrored line by line to a JSONL file."""

    path: Path | None = None
    entries: list[TranscriptEntry] = field(default_factory=list)
    _origin: float = field(default_factory=time.monotonic)

    def record(self, direction: Direction, message: Any) -> None:
        self._add(TranscriptEntry(direction, self._now(), mask_secrets(message)))

    def record_wire(self, direction: Direction, text: str) -> None:
        """Record the message whose JSON text went over the wire."""
        if needs_masking(text):
            self.record(direction, decode_json(text))
        else:
            self._add(TranscriptEntry.from_wire(direction, self._now(), text))

    def _now(self) -> float:
        return time.monotonic() - self._origin

    def _add(self, entry: TranscriptEntry) -> None:
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
