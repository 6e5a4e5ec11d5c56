"""A message's shape with the values of its enumerated fields kept, read with the schema
of the release that sent it.

`shape.shape` keeps a value's types only: an answer whose `approvalPolicy` goes from
`"never"` to `"on-request"` keeps its shape. Here the schema says which fields are
enumerated (an `enum`, a `const`, a boolean), and those keep their values: a default that
flips between two enum values is a change. A field is enumerated where any alternative
of its schema at that place is (an `Option<enum>` is one; a tagged union's tag is a
const). Every other field keeps its type, as in `shape`.

Paths are those of `shape.shape` (`thread.status.type`, `data[]`); a kept value is its
JSON text (`"idle"`, `true`), several at one path (the items of an array) joined by `|`.
Keys of an object that vary from run to run (ids, temporary folders) are masked as
`shape.mask_text` masks a message.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.validator import SCHEMA_FILES_KEPT
from codex_probe.harness.json_types import json_type
from codex_probe.probes.domain.surface.shape import ROOT, VARYING, mask_text

REF_PREFIX = "#/definitions/"
MAX_DEPTH = 24
UNION_FILES = {
    "client request": "ClientRequest.json",
    "server notification": "ServerNotification.json",
    "server request": "ServerRequest.json",
}


class MessageSchemas:
    """The schema nodes of a release's messages: each client request's response, each
    server notification's and server request's params."""

    def __init__(self, schema_dir: Path | None) -> None:
        self.schema_dir = schema_dir
        self.unions = {kind: _union(schema_dir, name) for kind, name in UNION_FILES.items()}

    def response(self, method: str) -> tuple[Any, dict[str, Any]] | None:
        """The response schema of a client request, and its definitions."""
        if self.schema_dir is None:
            return None
        params, _ = self.unions["client request"].get(method, (None, {}))
        names = [_camel(method) + "Response"]
        ref = params.get("$ref", "") if isinstance(params, dict) else ""
        params_type = str(ref).removeprefix(REF_PREFIX)
        if params_type.endswith("Params"):
            names.insert(0, params_type.removesuffix("Params") + "Response")
        for name in names:
            for folder in ("", "v2", "v1"):
                path = self.schema_dir / folder / f"{name}.json"
                if path.is_file():
                    document = _document(path)
                    return document, document.get("definitions") or {}
        return None

    def params(self, kind: str, method: str) -> tuple[Any, dict[str, Any]] | None:
        """The params schema of a server notification or server request."""
        found = self.unions.get(kind, {}).get(method)
        return None if found is None else found


def _union(schema_dir: Path | None, name: str) -> dict[str, tuple[Any, dict[str, Any]]]:
    if schema_dir is None or not (schema_dir / name).is_file():
        return {}
    document = _document(schema_dir / name)
    definitions = document.get("definitions") or {}
    found: dict[str, tuple[Any, dict[str, Any]]] = {}
    for variant in document.get("oneOf") or []:
        properties = variant.get("properties") or {}
        methods = (properties.get("method") or {}).get("enum") or []
        if methods:
            found[str(methods[0])] = (properties.get("params", True), definitions)
    return found


@lru_cache(maxsize=SCHEMA_FILES_KEPT)
def _document(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def _camel(method: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[/_]", method) if part)


def enumerated_shape(value: Any, schema: tuple[Any, dict[str, Any]] | None) -> dict[str, str]:
    """The shape of `value` (see the module); without a schema, its types only."""
    found: dict[str, set[str]] = {}
    nodes = [schema[0]] if schema is not None else []
    definitions = schema[1] if schema is not None else {}
    _walk(value, ROOT, nodes, definitions, found, 0)
    for path in VARYING:
        if path in found:
            found[path] |= {"null", "string"}
    return {path: "|".join(sorted(kinds)) for path, kinds in sorted(found.items())}


def enumerated_values(value: Any, schema: tuple[Any, dict[str, Any]] | None) -> dict[str, str]:
    """Only the kept values of `value`'s enumerated fields (a notification's label)."""
    return {
        path: kinds
        for path, kinds in enumerated_shape(value, schema).items()
        if any(kind.startswith('"') or kind in ("true", "false") for kind in kinds.split("|"))
    }


def _walk(
    value: Any,
    path: str,
    nodes: list[Any],
    definitions: dict[str, Any],
    found: dict[str, set[str]],
    depth: int,
) -> None:
    candidates = _candidates(nodes, definitions)
    if _enumerated(candidates, value) and not isinstance(value, dict | list):
        found.setdefault(path, set()).add(json.dumps(value))
    else:
        found.setdefault(path, set()).add(json_type(value))
    if depth > MAX_DEPTH:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            inner = [
                node["properties"][key]
                for node in candidates
                if isinstance(node.get("properties"), dict) and key in node["properties"]
            ]
            inner += [
                node["additionalProperties"]
                for node in candidates
                if isinstance(node.get("additionalProperties"), dict)
                and key not in (node.get("properties") or {})
            ]
            name = mask_text(str(key))
            _walk(
                item,
                name if path == ROOT else f"{path}.{name}",
                inner,
                definitions,
                found,
                depth + 1,
            )
    elif isinstance(value, list):
        inner = [node["items"] for node in candidates if isinstance(node.get("items"), dict)]
        for item in value:
            _walk(item, f"{path}[]", inner, definitions, found, depth + 1)


def _candidates(nodes: list[Any], definitions: dict[str, Any]) -> list[dict[str, Any]]:
    """Every schema node the value may be described by: refs resolved, unions opened."""
    found: list[dict[str, Any]] = []
    pending = list(nodes)
    seen = 0
    while pending and seen < 64:
        seen += 1
        node = pending.pop(0)
        if not isinstance(node, dict):
            continue
        if "$ref" in node:
            pending.append(definitions.get(str(node["$ref"]).removeprefix(REF_PREFIX), {}))
            continue
        found.append(node)
        for key in ("anyOf", "oneOf", "allOf"):
            pending.extend(node.get(key) or [])
    return found


def _enumerated(candidates: list[dict[str, Any]], value: Any) -> bool:
    for node in candidates:
        if "enum" in node or "const" in node:
            return True
        declared = node.get("type")
        kinds = declared if isinstance(declared, list) else [declared]
        if "boolean" in kinds and isinstance(value, bool):
            return True
    return False
