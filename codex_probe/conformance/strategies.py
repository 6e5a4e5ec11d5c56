"""Hypothesis strategies for request parameters, read from the version's generated schema.

Only the leaf shapes that make sense to vary are drawn: strings, nulls, booleans,
integers and string enums (a `oneOf` keeps its supported branches). A field whose
schema has nothing drawable, or that the version does not have, is left out, so
the parameters a version gets are always ones its own schema declares.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

# Printable text without control characters or lone surrogates (JSON-safe, log-safe).
CHARACTERS = st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs"))
TEXT = st.text(CHARACTERS, max_size=24)
NON_EMPTY_TEXT = st.text(CHARACTERS, min_size=1, max_size=24).filter(lambda s: s.strip() != "")


@cache
def _load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def params_schema(schema_dir: Path, name: str) -> dict[str, Any]:
    """The schema file of a params type (`ThreadStartParams`), v2 before the top level."""
    for folder in ("v2", ""):
        path = schema_dir / folder / f"{name}.json"
        if path.is_file():
            return _load(path)
    raise FileNotFoundError(f"{schema_dir} has no {name}.json")


def from_schema(
    schema: Mapping[str, Any],
    definitions: Mapping[str, Any],
    text: st.SearchStrategy[str] = TEXT,
) -> st.SearchStrategy[Any] | None:
    """A strategy for values of `schema`, or None when nothing in it is drawable."""
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/definitions/"):
        target = definitions.get(ref.rsplit("/", 1)[-1])
        return from_schema(target, definitions, text) if isinstance(target, Mapping) else None
    if "enum" in schema:
        values = [v for v in schema["enum"] if isinstance(v, str | int | bool) or v is None]
        return st.sampled_from(values) if values else None
    for key in ("anyOf", "oneOf"):
        if key in schema:
            branches = [from_schema(b, definitions, text) for b in schema[key]]
            usable = [b for b in branches if b is not None]
            return st.one_of(usable) if usable else None
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds or [])
    leaves = [_leaf(kind, text) for kind in kinds]
    usable_leaves = [leaf for leaf in leaves if leaf is not None]
    return st.one_of(usable_leaves) if usable_leaves else None


def _leaf(kind: str, text: st.SearchStrategy[str]) -> st.SearchStrategy[Any] | None:
    if kind == "string":
        return text
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(min_value=0, max_value=1000)
    return None


def params(
    schema_dir: Path,
    name: str,
    fields: Sequence[str],
    *,
    text: st.SearchStrategy[str] = TEXT,
) -> st.SearchStrategy[dict[str, Any]]:
    """Dictionaries of the `fields` this version's `name` declares, each present or absent."""
    schema = params_schema(schema_dir, name)
    definitions = schema.get("definitions", {})
    properties = schema.get("properties", {})
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for field in fields:
        if field in properties:
            strategy = from_schema(properties[field], definitions, text)
            if strategy is not None:
                optional[field] = strategy
    return st.fixed_dictionaries({}, optional=optional)


def user_text(schema_dir: Path) -> st.SearchStrategy[str]:
    """The `text` of a TextUserInput of turn/start, as this version's schema types it."""
    schema = params_schema(schema_dir, "TurnStartParams")
    variants = schema["definitions"]["UserInput"]["oneOf"]
    text_variant = next(v for v in variants if v.get("title") == "TextUserInput")
    strategy = from_schema(text_variant["properties"]["text"], {}, NON_EMPTY_TEXT)
    if strategy is None:
        raise ValueError("TextUserInput.text is not a string in this schema")
    return strategy
