"""A small TOML writer for codex's config.toml: scalars, arrays of scalars, nested tables.

The stdlib reads TOML (tomllib) but does not write it, and the config we write is
small enough that a dependency is not worth it. Tables become `[a.b]` sections;
root keys come first, as TOML requires.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import TypeAlias

TomlScalar: TypeAlias = str | int | float | bool
TomlValue: TypeAlias = "TomlScalar | Sequence[TomlScalar] | Mapping[str, TomlValue]"

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_SHORT_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def quote_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for char in text:
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def format_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else quote_string(key)


def format_value(value: TomlScalar | Sequence[TomlScalar]) -> str:
    # bool before int: bool is a subclass of int.
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return quote_string(value)
    if isinstance(value, Sequence):
        return "[" + ", ".join(format_value(item) for item in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} as a TOML value")


def dumps(document: Mapping[str, TomlValue]) -> str:
    """Serialize `document` (a mapping of keys to values or nested mappings)."""
    lines: list[str] = []
    _write_table(lines, (), document)
    return "\n".join(lines).lstrip("\n") + "\n"


def _write_table(lines: list[str], path: tuple[str, ...], table: Mapping[str, TomlValue]) -> None:
    scalars = [(k, v) for k, v in table.items() if not isinstance(v, Mapping)]
    subtables = [(k, v) for k, v in table.items() if isinstance(v, Mapping)]
    if path and (scalars or not subtables):
        lines.append("")
        lines.append("[" + ".".join(format_key(part) for part in path) + "]")
    for key, value in scalars:
        assert not isinstance(value, Mapping)
        lines.append(f"{format_key(key)} = {format_value(value)}")
    for key, table_value in subtables:
        assert isinstance(table_value, Mapping)
        _write_table(lines, (*path, key), table_value)
