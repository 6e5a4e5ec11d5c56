"""The shape of every method in a generated schema folder: its fields and their types.

Each method's params (and, for requests, the response) are resolved through their
`$ref`s and flattened to `{path: {"type": ..., "required": ...}}`, so two versions can be
compared structurally: a renamed definition with the same fields is no change, a field
whose type goes from `string` to `string|null` is a retype.

Paths: `cwd`, `thread.turns[].id` (array items), `config{}` (map values),
`items[]<type=userMessage>.content` (the variant of a tagged union whose `type` is
`userMessage`). A type that refers back to itself is flattened once.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Fields = dict[str, dict[str, Any]]

UNION_FILES: dict[str, str] = {
    "client request": "ClientRequest.json",
    "client notification": "ClientNotification.json",
    "server request": "ServerRequest.json",
    "server notification": "ServerNotification.json",
}
REQUEST_KINDS = ("client request", "server request")
MAX_DEPTH = 12
REF_PREFIX = "#/definitions/"


@dataclass(frozen=True)
class MethodShape:
    kind: str
    method: str
    params: Fields | None  # None: the method takes no params
    response: Fields | None  # None: a notification, or no response type published


def load_shapes(schema_dir: Path) -> dict[str, dict[str, MethodShape]]:
    """kind -> method -> shape, for every method of the four unions."""
    if not (schema_dir / "ClientRequest.json").is_file():
        raise FileNotFoundError(f"{schema_dir} holds no generated schema (no ClientRequest.json)")
    unions = {
        kind: json.loads((schema_dir / file_name).read_text())
        for kind, file_name in UNION_FILES.items()
    }
    responses = _response_names(schema_dir, unions)
    shapes: dict[str, dict[str, MethodShape]] = {}
    for kind, union in unions.items():
        definitions = union.get("definitions", {})
        shapes[kind] = {}
        for variant in union.get("oneOf", []):
            method = variant["properties"]["method"]["enum"][0]
            params_schema = variant["properties"].get("params")
            params = None if params_schema is None else flatten(params_schema, definitions)
            response = None
            if (kind, method) in responses:
                document = json.loads(responses[kind, method].read_text())
                response = flatten(document, document.get("definitions", {}))
            shapes[kind][method] = MethodShape(kind, method, params, response)
    return shapes


def flatten(schema: Any, definitions: dict[str, Any]) -> Fields:
    fields: Fields = {}
    _walk(schema, "", definitions, fields, depth=0, seen=())
    return fields


def describe(schema: Any, definitions: dict[str, Any], seen: tuple[str, ...] = ()) -> str:
    """A structural type: `string|null`, `integer(uint32)`, `enum(a|b)`, `array<object>`."""
    atoms: set[str] = set()
    values: set[str] = set()
    _collect(schema, definitions, seen, atoms, values)
    parts = sorted(atoms)
    if values:  # the values of every enum and const in a union form one enum
        parts.append("enum(" + "|".join(sorted(values)) + ")")
    return "|".join(parts) or "never"


def enum_values(type_text: str) -> set[str]:
    found = re.search(r"enum\(([^)]*)\)", type_text)
    return set(found.group(1).split("|")) if found else set()


def _collect(
    schema: Any,
    definitions: dict[str, Any],
    seen: tuple[str, ...],
    atoms: set[str],
    values: set[str],
) -> None:
    if schema is True or schema == {}:
        atoms.add("any")
        return
    if not isinstance(schema, dict):
        return
    if "$ref" in schema:
        name = _ref_name(schema["$ref"])
        if name in seen:
            atoms.add("object")  # a recursive type: its fields are listed once, elsewhere
            return
        _collect(definitions.get(name, {}), definitions, (*seen, name), atoms, values)
        return
    alternatives = [alt for key in ("anyOf", "oneOf") for alt in schema.get(key, [])]
    for alt in alternatives:
        _collect(alt, definitions, seen, atoms, values)
    if "allOf" in schema:
        atoms.add("&".join(sorted(describe(part, definitions, seen) for part in schema["allOf"])))
    if "const" in schema or "enum" in schema:
        for value in schema["enum"] if "enum" in schema else [schema["const"]]:
            if value is None:
                atoms.add("null")  # an enum that admits null is a nullable enum
            else:
                values.add(str(value))
    elif not alternatives and "allOf" not in schema:
        types = schema.get("type", "object" if "properties" in schema else "any")
        for name in types if isinstance(types, list) else [types]:
            atoms.add(_describe_type(str(name), schema, definitions, seen))


def _describe_type(
    name: str, schema: dict[str, Any], definitions: dict[str, Any], seen: tuple[str, ...]
) -> str:
    if name == "array":
        return f"array<{describe(schema.get('items', {}), definitions, seen)}>"
    if name == "object" and "properties" not in schema and "additionalProperties" in schema:
        return f"map<{describe(schema['additionalProperties'], definitions, seen)}>"
    if name in ("integer", "number") and "format" in schema:
        return f"{name}({schema['format']})"
    return name


def _walk(
    schema: Any,
    path: str,
    definitions: dict[str, Any],
    fields: Fields,
    *,
    depth: int,
    seen: tuple[str, ...],
) -> None:
    """Add the fields below `path` (not `path` itself) to `fields`."""
    if depth > MAX_DEPTH or not isinstance(schema, dict):
        return
    if "$ref" in schema:
        name = _ref_name(schema["$ref"])
        if name not in seen:
            _walk(
                definitions.get(name, {}),
                path,
                definitions,
                fields,
                depth=depth,
                seen=(*seen, name),
            )
        return
    alternatives = [alt for key in ("anyOf", "oneOf") for alt in schema.get(key, [])]
    structured = [alt for alt in alternatives if _has_fields(alt, definitions, seen)]
    for alt in structured:  # an Option<T> is T; a tagged union is one path per variant
        label = "" if len(structured) == 1 else f"<{_variant_label(alt, definitions, seen)}>"
        _walk(alt, path + label, definitions, fields, depth=depth + 1, seen=seen)
    for part in schema.get("allOf", []):
        _walk(part, path, definitions, fields, depth=depth + 1, seen=seen)
    required = set(schema.get("required", []))
    for name, sub in schema.get("properties", {}).items():
        child = f"{path}.{name}" if path else name
        fields[child] = {"type": describe(sub, definitions, seen), "required": name in required}
        _walk(sub, child, definitions, fields, depth=depth + 1, seen=seen)
    if isinstance(schema.get("items"), dict):
        _walk(schema["items"], path + "[]", definitions, fields, depth=depth + 1, seen=seen)
    if isinstance(schema.get("additionalProperties"), dict):
        _walk(
            schema["additionalProperties"],
            path + "{}",
            definitions,
            fields,
            depth=depth + 1,
            seen=seen,
        )


def _has_fields(schema: Any, definitions: dict[str, Any], seen: tuple[str, ...]) -> bool:
    resolved = _resolve(schema, definitions)
    if not isinstance(resolved, dict):
        return False
    if isinstance(schema, dict) and "$ref" in schema and _ref_name(schema["$ref"]) in seen:
        return False
    return any(key in resolved for key in ("properties", "anyOf", "oneOf", "allOf", "items"))


def _variant_label(schema: Any, definitions: dict[str, Any], seen: tuple[str, ...]) -> str:
    """`type=userMessage` for a tagged variant; else its title, else its structural type."""
    resolved = _resolve(schema, definitions)
    for name, sub in resolved.get("properties", {}).items():
        sub = _resolve(sub, definitions)
        if not isinstance(sub, dict):
            continue
        if "const" in sub:
            return f"{name}={sub['const']}"
        if len(sub.get("enum", [])) == 1:
            return f"{name}={sub['enum'][0]}"
    if title := resolved.get("title") or (
        _ref_name(schema["$ref"]) if isinstance(schema, dict) and "$ref" in schema else ""
    ):
        return str(title)
    return describe(schema, definitions, seen)


def _resolve(schema: Any, definitions: dict[str, Any]) -> Any:
    for _ in range(MAX_DEPTH):  # a chain of aliases ends; a loop of them does not
        if not (isinstance(schema, dict) and "$ref" in schema):
            return schema
        schema = definitions.get(_ref_name(schema["$ref"]), {})
    return {}


def _ref_name(ref: str) -> str:
    return ref.removeprefix(REF_PREFIX)


def _response_names(schema_dir: Path, unions: dict[str, Any]) -> dict[tuple[str, str], Path]:
    """(kind, request method) -> the file of its response type. The schema names no
    response of a method; its types are named after it: `thread/start` answers
    `ThreadStartResponse`, as its params are `ThreadStartParams`. Where neither name is
    published, a response no other method claims whose words are the method's
    (`account/logout`: `LogoutAccountResponse`; read is get, reload refresh) or a part
    of them (`config/value/write`: `ConfigWriteResponse`) is taken, the one sharing most
    words; none is taken when two tie (the method's answer then reads null: unknown)."""
    files = {
        path.stem: path
        for folder in ("v1", "v2", "")  # a root file wins over a versioned one
        for path in sorted((schema_dir / folder).glob("*Response.json"))
    }
    found: dict[tuple[str, str], Path] = {}
    unnamed: list[tuple[str, str]] = []
    for kind in REQUEST_KINDS:
        for variant in unions[kind].get("oneOf", []):
            method = variant["properties"]["method"]["enum"][0]
            params_ref = variant["properties"].get("params") or {}
            params_type = (
                _ref_name(params_ref.get("$ref", "")) if isinstance(params_ref, dict) else ""
            )
            names = [_camel(method) + "Response"]
            if params_type.endswith("Params"):
                names.insert(0, params_type.removesuffix("Params") + "Response")
            name = next((n for n in names if n in files), None)
            if name is None:
                unnamed.append((kind, method))
            else:
                found[kind, method] = files[name]
    claimed = {path.stem for path in found.values()}
    free = {name: _words(name.removesuffix("Response")) for name in files if name not in claimed}
    for kind, method in unnamed:
        words = _words(method)
        fits = sorted(
            (len(named), name) for name, named in free.items() if len(named) > 1 and named <= words
        )
        if fits and (len(fits) == 1 or fits[-1][0] > fits[-2][0]):
            found[kind, method] = files[fits[-1][1]]
    return found


SYNONYMS = {"read": "get", "reload": "refresh"}


def _words(name: str) -> frozenset[str]:
    """The words of a method or a type name, lowercased, synonyms as one."""
    words = re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)
    return frozenset(SYNONYMS.get(word.lower(), word.lower()) for word in words)


def _camel(method: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[/_]", method) if part)
