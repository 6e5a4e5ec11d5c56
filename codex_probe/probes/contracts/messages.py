"""What a contract keeps of a JSON-RPC message: its shape, the ids codex gave in it, the
values a client sent where the schema has an enum, and paths of the recording's own
folders as placeholders (and back)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from codex_probe.harness.codex.schema_shapes import Fields
from codex_probe.probes.domain.surface.classify import VARIANT, TypeText
from codex_probe.probes.domain.surface.shape import ROOT, UUID, shape


def strings(value: Any, path: str = ROOT) -> Iterator[tuple[str, str]]:
    """Every string of a JSON value with its path as shape() names it (`thread.id`,
    `input[].type`)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, key if path == ROOT else f"{path}.{key}")
    elif isinstance(value, list):
        for item in value:
            yield from strings(item, f"{path}[]")


def is_id(path: str, text: str) -> bool:
    """An id codex made: a UUID, or the value of a key named `id` or `...Id`."""
    last = re.split(r"[.\[\]]+", path.rstrip("[]"))[-1]
    return bool(UUID.fullmatch(text)) or last == "id" or (last.endswith("Id") and bool(text))


def ids_of(value: Any) -> dict[str, str]:
    """The ids in a received value, by path (the first at each path)."""
    found: dict[str, str] = {}
    for path, text in strings(value):
        if is_id(path, text):
            found.setdefault(path, text)
    return found


def enum_paths(fields: Fields | None) -> dict[str, set[str]]:
    """Schema fields with enum values, by the path shape() gives an instance of them."""
    found: dict[str, set[str]] = {}
    for path, spec in (fields or {}).items():
        parsed = TypeText.parse(str(spec["type"]))
        if "enum" in parsed.atoms:
            found.setdefault(VARIANT.sub("", path), set()).update(parsed.values)
    return found


def enum_values(value: Any, fields: Fields | None) -> dict[str, list[str]]:
    """What `value` holds at fields the schema gives enum values, by path."""
    enums = enum_paths(fields)
    found: dict[str, set[str]] = {}
    for path, text in strings(value):
        if path in enums:
            found.setdefault(path, set()).add(text)
    return {path: sorted(values) for path, values in sorted(found.items())}


def merged_shape(old: Mapping[str, str] | None, value: Any) -> dict[str, str]:
    """A shape of all the values seen at a place: each path's types joined."""
    types: dict[str, set[str]] = {p: set(t.split("|")) for p, t in (old or {}).items()}
    for path, kind in shape(value).items():
        types.setdefault(path, set()).update(kind.split("|"))
    return {path: "|".join(sorted(kinds)) for path, kinds in sorted(types.items())}


def replaced(value: Any, mapping: Mapping[str, str]) -> Any:
    """`value` with every occurrence of each key of `mapping` in its strings replaced (longest
    first: a folder before the folder holding it)."""
    if not mapping:
        return value
    order = sorted(mapping, key=len, reverse=True)
    if isinstance(value, str):
        for old in order:
            value = value.replace(old, mapping[old])
        return value
    if isinstance(value, list):
        return [replaced(item, mapping) for item in value]
    if isinstance(value, dict):
        return {key: replaced(item, mapping) for key, item in value.items()}
    return value
