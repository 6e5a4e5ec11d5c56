"""A file format others read back: a msgspec model of the file, the JSON schema generated
from it, and the one check of a file against that schema, which names the file and the
first wrong field in one line.

Each format's module (beside the code that writes the file) declares its model and its
loader (`load_verdict`, `load_surfaces`, `load_history`); `codex_probe/probes/formats.py`
lists them and writes their checked-in schema files; docs/formats.md says where.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import jsonschema
import msgspec

from codex_probe.harness.codex.versions import VERSION_PATTERN
from codex_probe.harness.files import read_json

# A version as a key or value of a file format: the schema says what versions.py checks.
Version = Annotated[str, msgspec.Meta(pattern=VERSION_PATTERN)]

# A wrong value is quoted in the message; a file may hold megabytes in one field.
SHOWN = 80


def schema_of(model: type[Any]) -> dict[str, Any]:
    """The JSON schema (2020-12) of a msgspec model."""
    return msgspec.json.schema(model)


def schema_text(model: type[Any]) -> str:
    """The schema as its checked-in file holds it."""
    return json.dumps(schema_of(model), indent=2, sort_keys=True) + "\n"


_validators: dict[type[Any], jsonschema.Draft202012Validator] = {}


def _validator(model: type[Any]) -> jsonschema.Draft202012Validator:
    if model not in _validators:
        _validators[model] = jsonschema.Draft202012Validator(schema_of(model))
    return _validators[model]


def check_document(
    document: Any, model: type[Any], error: Callable[[str], Exception], source: str
) -> None:
    """Nothing if `document` matches `model`'s schema; else `error` raised with one line:
    `SOURCE: $.a.b['key']: what is wrong` (the first wrong field in document order)."""
    problems = list(_validator(model).iter_errors(document))
    if not problems:
        return
    first = min(problems, key=lambda problem: [str(part) for part in problem.absolute_path])
    raise error(f"{source}: {field_path(list(first.absolute_path))}: {_one_line(first.message)}")


def read_document(
    path: Path, model: type[Any], error: Callable[[str], Exception], what: str
) -> Any:
    """The JSON document at `path`, checked against `model`'s schema (read_json's errors
    for a file that is missing, unreadable or not JSON)."""
    document = read_json(path, error, what)
    check_document(document, model, error, str(path))
    return document


def field_path(parts: list[str | int]) -> str:
    """`$`, then `.name` for a plain key, `['odd key']` for any other, `[3]` for an index."""
    shown = "$"
    for part in parts:
        if isinstance(part, int):
            shown += f"[{part}]"
        elif part.isidentifier():
            shown += f".{part}"
        else:
            shown += f"[{_one_line(json.dumps(part))}]"
    return shown


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 2 * SHOWN else flat[:SHOWN] + " ... " + flat[-SHOWN:]
