"""Values built from a JSON schema as `codex app-server generate-json-schema` writes it.

A value is built for a node of the schema (`$ref`s into its `definitions`, `anyOf`/`oneOf`
unions, `enum`/`const`, typed nodes) in one of two modes: *minimal* (the required fields
only) or *full* (every field). Where a value comes from the exploration's own fixtures (a
thread id, a folder of its own), `fill` says so, by the path of field names that leads to
it (`("input", "[]", "<localImage>", "path")`: an alternative of a union is named by its
label, see `SchemaTree.label`); everything else is made up from the schema alone: the
first alternative of a union, the first value of an enum, `"explore"` for a string, 1 for
a number, `True` for a boolean of a full value (a boolean's default is false).

For the variants of a call (plan.py) a field also gives:
- its *finite values*: every enum value, const, and tagged alternative of its union (the
  `type=readOnly` variant of a sandbox policy), or of its array's items (one item of each
  input kind); booleans are not among them (minimal leaves them out, full sets them);
- a value of the *wrong type* (42 where a string is expected, `"explore"` where a number
  is), and an *unknown value* of an enumerated field.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from codex_probe.harness.json_types import json_type

REF_PREFIX = "#/definitions/"
# A type that contains itself is built this deep at most.
MAX_DEPTH = 8
STRING = "explore"
UNKNOWN_VALUE = "explore-unknown-value"
UNKNOWN_TAG = "exploreUnknown"
# Values of each JSON type, for a field given a type it does not take (first that fits).
WRONG_TYPED: tuple[tuple[str, Any], ...] = (
    ("integer", 42),
    ("string", STRING),
    ("array", [STRING]),
    ("object", {STRING: 1}),
)
# Keys of a schema node that say nothing about its values.
ANNOTATIONS = frozenset({"description", "title", "default", "examples", "deprecated"})

Path = tuple[str, ...]


class Missing:
    """No fixture for this path: the value is built from the schema."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = Missing()
Fill = Callable[[Path, dict[str, Any]], Any]


def no_fill(path: Path, node: dict[str, Any]) -> Any:
    return MISSING


@dataclass(frozen=True)
class Finite:
    """One of a field's finite values: its label in a variant's name, and the value."""

    label: str
    value: Any


class SchemaTree:
    """A schema node's definitions, and the questions the builders ask of a node."""

    def __init__(self, definitions: dict[str, Any]) -> None:
        self.definitions = definitions

    def resolve(self, node: Any) -> Any:
        for _ in range(MAX_DEPTH * 2):  # a chain of aliases ends; a loop of them does not
            if not (isinstance(node, dict) and "$ref" in node):
                return node
            node = self.definitions.get(str(node["$ref"]).removeprefix(REF_PREFIX), {})
        return {}

    def alternatives(self, node: Any) -> list[Any]:
        """The union's alternatives that are not null (resolved)."""
        node = self.resolve(node)
        if not isinstance(node, dict):
            return []
        found = [self.resolve(alt) for key in ("anyOf", "oneOf") for alt in node.get(key, [])]
        return [alt for alt in found if not self.is_null(alt)]

    def is_null(self, node: Any) -> bool:
        node = self.resolve(node)
        return isinstance(node, dict) and node.get("type") == "null" and len(node) == 1

    def is_any(self, node: Any) -> bool:
        node = self.resolve(node)
        return node is True or (isinstance(node, dict) and not set(node) - ANNOTATIONS)

    def json_types(self, node: Any) -> set[str] | None:
        """The JSON types a node accepts; None if it accepts anything."""
        node = self.resolve(node)
        if self.is_any(node):
            return None
        if not isinstance(node, dict):
            return set()
        found: set[str] = set()
        alternatives = [alt for key in ("anyOf", "oneOf") for alt in node.get(key, [])]
        for alt in alternatives:
            inner = self.json_types(alt)
            if inner is None:
                return None
            found |= inner
        for value in node.get("enum", []) + ([node["const"]] if "const" in node else []):
            found.add(json_type(value))
        declared = node.get("type")
        if declared is not None:
            found |= set(declared if isinstance(declared, list) else [declared])
        elif "properties" in node and not alternatives:
            found.add("object")
        return found

    def tag(self, node: Any) -> tuple[str, str] | None:
        """A tagged object's tag: the property with one possible value (`type`, `readOnly`)."""
        node = self.resolve(node)
        if not isinstance(node, dict):
            return None
        for name, sub in (node.get("properties") or {}).items():
            sub = self.resolve(sub)
            if isinstance(sub, dict):
                if "const" in sub:
                    return name, str(sub["const"])
                if len(sub.get("enum") or []) == 1:
                    return name, str(sub["enum"][0])
        return None

    def label(self, node: Any) -> str:
        """How a variant names an alternative: its tag's value, else its title, else its
        single required field, else its type."""
        node = self.resolve(node)
        tagged = self.tag(node)
        if tagged is not None:
            return tagged[1]
        if isinstance(node, dict):
            if node.get("title"):
                return str(node["title"])
            required = node.get("required") or []
            if len(required) == 1:
                return str(required[0])
        types = sorted(self.json_types(node) or {"any"})
        return "|".join(types)


def all_of(made: list[Any]) -> Any:
    """The value of an `allOf` from its parts' values: objects merged; else the first part's
    (schemars wraps a `$ref` with a default in an `allOf` of one: sandboxPolicy's
    `networkAccess` is `{"allOf": [NetworkAccess], "default": "restricted"}`, a string)."""
    if all(isinstance(part, dict) for part in made):
        merged: dict[str, Any] = {}
        for part in made:
            merged.update(part)
        return merged
    return next(part for part in made if not isinstance(part, dict))


class Builder:
    """Builds values of a schema's nodes, with fixtures from `fill`."""

    def __init__(self, tree: SchemaTree, fill: Fill = no_fill) -> None:
        self.tree = tree
        self.fill = fill

    def value(self, node: Any, *, full: bool, path: Path = (), depth: int = 0) -> Any:
        resolved = self.tree.resolve(node)
        given = self.fill(path, resolved if isinstance(resolved, dict) else {})
        if given is not MISSING:
            return given
        if depth > MAX_DEPTH:
            return None
        if self.tree.is_any(resolved):
            return STRING
        if not isinstance(resolved, dict):
            return None
        if "const" in resolved:
            return resolved["const"]
        if "enum" in resolved:
            return next((v for v in resolved["enum"] if v is not None), None)
        alternatives = self.tree.alternatives(resolved)
        if alternatives:
            first = alternatives[0]
            where = (*path, f"<{self.tree.label(first)}>") if len(alternatives) > 1 else path
            chosen = self.value(first, full=full, path=where, depth=depth + 1)
            if "properties" in resolved and isinstance(chosen, dict):
                return {**self._object(resolved, full, path, depth), **chosen}
            return chosen
        if "allOf" in resolved:
            return all_of(
                [
                    self.value(part, full=full, path=path, depth=depth + 1)
                    for part in resolved["allOf"]
                ]
            )
        types = [t for t in sorted(self.tree.json_types(resolved) or set()) if t != "null"]
        if "object" in types or "properties" in resolved:
            return self._object(resolved, full, path, depth)
        if not types:
            return None
        kind = _PREFERRED[min(_PREFERRED_ORDER.get(t, 99) for t in types)]
        if kind == "array":
            items = resolved.get("items")
            if full and isinstance(items, dict | bool):
                return [self.value(items, full=full, path=(*path, "[]"), depth=depth + 1)]
            return []
        if kind == "string":
            return STRING
        if kind == "integer":
            return max(1, int(resolved.get("minimum") or 0))
        if kind == "number":
            return 1.0
        if kind == "boolean":
            return full
        return None

    def _object(self, node: dict[str, Any], full: bool, path: Path, depth: int) -> dict[str, Any]:
        properties: dict[str, Any] = node.get("properties") or {}
        required = set(node.get("required") or [])
        made = {
            name: self.value(sub, full=full, path=(*path, name), depth=depth + 1)
            for name, sub in properties.items()
            if full or name in required
        }
        extra = node.get("additionalProperties")
        if full and not properties and extra not in (None, False):
            made[STRING] = self.value(
                extra if isinstance(extra, dict) else True,
                full=full,
                path=(*path, "{}"),
                depth=depth + 1,
            )
        return made

    # ----- what the variants of a call need of a field ---------------------------------

    def finite_values(self, node: Any, path: Path) -> list[Finite]:
        """Every enumerated value of a field (see the module); [] if it has none."""
        resolved = self.tree.resolve(node)
        if not isinstance(resolved, dict):
            return []
        found = self._finite(resolved, path)
        if found:
            return found
        alternatives = self.tree.alternatives(resolved)
        if (
            not alternatives
            and "array" in (self.tree.json_types(resolved) or set())
            and isinstance(resolved.get("items"), dict)
        ):
            items = self._finite(self.tree.resolve(resolved["items"]), (*path, "[]"))
            return [Finite(f"[{item.label}]", [item.value]) for item in items]
        return []

    def _finite(self, node: dict[str, Any], path: Path) -> list[Finite]:
        if "enum" in node:
            return [Finite(str(v), v) for v in node["enum"] if v is not None]
        if "const" in node:
            return [Finite(str(node["const"]), node["const"])]
        found: list[Finite] = []
        alternatives = self.tree.alternatives(node)
        for alt in alternatives:
            if isinstance(alt, dict) and (_enumerated(alt) or _bare_union(alt)):
                found += self._finite(alt, path)
            elif "object" in (self.tree.json_types(alt) or set()):
                label = self.tree.label(alt)
                made = self.value(alt, full=False, path=(*path, f"<{label}>"))
                found.append(Finite(label, made))
        # A union of free alternatives (a string, a number) has no finite values.
        only = alternatives[0] if len(alternatives) == 1 else None
        if only is not None and not (_enumerated(only) or _bare_union(only)):
            return []  # one object, or nothing: an optional field, not a choice
        return found if all(_finite_alternative(self.tree, a) for a in alternatives) else []

    def wrong_typed(self, node: Any) -> Any:
        """A value of a type the node does not take (MISSING if it takes anything)."""
        types = self.tree.json_types(node)
        if types is None:
            return MISSING
        for kind, value in WRONG_TYPED:
            taken = types & ({"integer", "number"} if kind == "integer" else {kind})
            if not taken:
                return value
        return MISSING

    def unknown_value(self, node: Any, path: Path) -> Any:
        """A value of an enumerated field that is none of its values (MISSING if the field
        is not enumerated)."""
        resolved = self.tree.resolve(node)
        finite = self.finite_values(resolved, path)
        if not finite:
            return MISSING
        if all(isinstance(f.value, list) for f in finite):
            inner = [f.value[0] for f in finite if f.value]
            return [self._unknown_of(inner)]
        return self._unknown_of([f.value for f in finite])

    def _unknown_of(self, values: list[Any]) -> Any:
        tagged = next((v for v in values if isinstance(v, dict)), None)
        if tagged is not None and all(isinstance(v, dict) for v in values):
            tag = next(iter(tagged), STRING)
            return {tag: UNKNOWN_TAG}
        return UNKNOWN_VALUE


def _finite_alternative(tree: SchemaTree, alt: Any) -> bool:
    alt = tree.resolve(alt)
    if not isinstance(alt, dict):
        return False
    if _bare_union(alt):
        return all(_finite_alternative(tree, inner) for inner in tree.alternatives(alt))
    return _enumerated(alt) or "object" in (tree.json_types(alt) or set())


def _enumerated(node: Any) -> bool:
    return isinstance(node, dict) and ("enum" in node or "const" in node)


def _bare_union(node: Any) -> bool:
    """A union with nothing of its own (an alias of its alternatives)."""
    return (
        isinstance(node, dict) and ("anyOf" in node or "oneOf" in node) and "properties" not in node
    )


# Which type a node that takes several is built as: the one that says most.
_PREFERRED = ("object", "array", "string", "integer", "number", "boolean")
_PREFERRED_ORDER = {kind: position for position, kind in enumerate(_PREFERRED)}
