"""The schema side of a release's surface: from the JSON schema the release generates
(`codex app-server generate-json-schema`), every method of each kind with its parameter
fields (flattened as codex_probe/harness/codex/schema_shapes.py flattens them), their types, and
which are required."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codex_probe.harness.codex.schema_shapes import load_shapes


def schema_methods(schema_dir: Path) -> dict[str, dict[str, Any]]:
    """`KIND METHOD` (e.g. `client request thread/start`) -> its params: each field with
    its type, `(required)` added where the schema requires it; None for no params."""
    methods: dict[str, dict[str, Any]] = {}
    for kind, shapes in load_shapes(schema_dir).items():
        for method, method_shape in sorted(shapes.items()):
            params = method_shape.params
            methods[f"{kind} {method}"] = {
                "params": None
                if params is None
                else {
                    path: spec["type"] + (" (required)" if spec["required"] else "")
                    for path, spec in sorted(params.items())
                }
            }
    return methods
