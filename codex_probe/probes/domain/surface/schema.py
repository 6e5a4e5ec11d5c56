"""The schema side of a release's surface: from the JSON schema the release generates
(`codex app-server generate-json-schema`), every method of each kind with the fields of its
params and, for a request (the client's or codex's own), of its answer, flattened as
codex_probe/harness/codex/schema_shapes.py flattens them.

A field's value is its structural type: the values of an enum it admits (`enum(a|b)`),
`null` where it is nullable, and ` (required)` where the schema requires it, so a retired
enum value, a field made nullable or newly required is a change of that field. Every
definition the protocol uses is kept this way, in the fields that use it (a definition no
method reaches is no part of the protocol).

    "client request thread/start": {"params": {PATH: TYPE}, "result": {PATH: TYPE}}
    "server notification turn/started": {"params": {PATH: TYPE}}

`params` is null for a method without params; `result` null for a request whose answer's
type the schema does not name (schema_shapes.py says how the name is found).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codex_probe.harness.codex.schema_shapes import REQUEST_KINDS, Fields, load_shapes

REQUIRED = " (required)"


def schema_methods(schema_dir: Path) -> dict[str, dict[str, Any]]:
    """`KIND METHOD` (e.g. `client request thread/start`) -> its params' fields and, for a
    request, its result's."""
    methods: dict[str, dict[str, Any]] = {}
    for kind, shapes in load_shapes(schema_dir).items():
        for method, method_shape in sorted(shapes.items()):
            value: dict[str, Any] = {"params": _fields(method_shape.params)}
            if kind in REQUEST_KINDS:
                value["result"] = _fields(method_shape.response)
            methods[f"{kind} {method}"] = value
    return methods


def _fields(fields: Fields | None) -> dict[str, str] | None:
    if fields is None:
        return None
    return {
        path: spec["type"] + (REQUIRED if spec["required"] else "")
        for path, spec in sorted(fields.items())
    }
