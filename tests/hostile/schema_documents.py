"""Hypothesis strategies for JSON documents: any JSON value, and any document a JSON schema
of the subset msgspec generates admits ($ref, object, array, anyOf, enum, string with a
pattern, integer, number, boolean, null, and `{}` for any value): every field a value of
its JSON type, and no more than that. (hypothesis-jsonschema does this in general, but its
release does not run on the Hypothesis this project pins.)"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
ANY_JSON: st.SearchStrategy[Any] = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Documents `schema` admits (the top of a schema file, with its $defs)."""
    return _strategy(schema, schema.get("$defs", {}))


def _strategy(node: dict[str, Any], defs: dict[str, Any]) -> st.SearchStrategy[Any]:
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return st.deferred(lambda: _strategy(defs[name], defs))
    if "anyOf" in node:
        return st.one_of([_strategy(option, defs) for option in node["anyOf"]])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    kind = node.get("type")
    if kind is None:
        return ANY_JSON
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers()
    if kind == "number":
        return st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    if kind == "string":
        pattern = node.get("pattern")
        return st.from_regex(pattern, fullmatch=True) if pattern else st.text(max_size=20)
    if kind == "array":
        return st.lists(_strategy(node.get("items", {}), defs), max_size=3)
    if kind == "object":
        return _object(node, defs)
    raise ValueError(f"a schema node this strategy does not know: {node}")


def _object(node: dict[str, Any], defs: dict[str, Any]) -> st.SearchStrategy[Any]:
    properties = node.get("properties")
    if properties is not None:
        required = set(node.get("required", []))
        fixed = {name: _strategy(sub, defs) for name, sub in properties.items() if name in required}
        optional = {
            name: _strategy(sub, defs) for name, sub in properties.items() if name not in required
        }
        return st.fixed_dictionaries(fixed, optional=optional)
    names = node.get("propertyNames", {}).get("pattern")
    keys = st.from_regex(names, fullmatch=True) if names else st.text(max_size=12)
    values = node.get("additionalProperties", {})
    return st.dictionaries(
        keys, _strategy(values if isinstance(values, dict) else {}, defs), max_size=3
    )
