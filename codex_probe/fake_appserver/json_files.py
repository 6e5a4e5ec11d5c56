"""A JSON file of the fake decoded into its typed model, or refused in one line naming the
file and the field; and a model's JSON schema in one form whatever the msgspec release."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any, TypeVar

import msgspec

DecodedT = TypeVar("DecodedT")


class FileRefused(ValueError):
    """A file of the fake (a profile, a wire file, an answer book) that is missing or does
    not have its model's shape: one line, naming the file and the field."""


def decode_file(path: Path, model: type[DecodedT], refused: type[FileRefused]) -> DecodedT:
    """`path` decoded into `model`, or `refused` raised with the file and the field named."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise refused(f"{path}: cannot read: {error.strerror or error}") from None
    try:
        return msgspec.json.decode(raw, type=model)
    except msgspec.ValidationError as error:
        raise refused(f"{path}: {error}") from None
    except msgspec.DecodeError as error:
        raise refused(f"{path}: {_where_json_breaks(raw, error)}") from None


def _where_json_breaks(raw: bytes, error: msgspec.DecodeError) -> str:
    """`invalid JSON at line L:C: what` (a truncated file ends mid-value: its last line);
    msgspec counts bytes, a person reading the file counts lines."""
    try:
        json.loads(raw)
    except json.JSONDecodeError as located:
        return f"invalid JSON at line {located.lineno}:{located.colno}: {located.msg}"
    except (UnicodeDecodeError, RecursionError):
        pass
    return f"invalid JSON: {error}"


def model_schema(model: type[Any]) -> dict[str, Any]:
    """The JSON schema of `model`, in one form whatever the msgspec release: msgspec 0.18 to
    0.22 put `null` first in an optional field's `anyOf` and keep a docstring's indentation
    in its `description`, 0.23 does neither."""
    schema: dict[str, Any] = _canonical(msgspec.json.schema(model))
    return schema


def _canonical(node: Any) -> Any:
    """`node` with every `description` dedented (inspect.cleandoc) and every `anyOf` in the
    order of its members' JSON text."""
    if isinstance(node, list):
        return [_canonical(item) for item in node]
    if not isinstance(node, dict):
        return node
    canonical = {key: _canonical(value) for key, value in node.items()}
    if isinstance(canonical.get("description"), str):
        canonical["description"] = inspect.cleandoc(canonical["description"])
    if isinstance(canonical.get("anyOf"), list):
        canonical["anyOf"] = sorted(canonical["anyOf"], key=lambda m: json.dumps(m, sort_keys=True))
    return canonical


def schema_text_of(model: type[Any]) -> str:
    return json.dumps(model_schema(model), indent=2, sort_keys=True) + "\n"
