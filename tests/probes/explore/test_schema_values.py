"""Values built from a schema: minimal, full, one per enumerated value, and invalid ones."""

from __future__ import annotations

from typing import Any

from codex_probe.probes.explore.schema_values import (
    MISSING,
    UNKNOWN_VALUE,
    Builder,
    Path,
    SchemaTree,
)

DEFINITIONS: dict[str, Any] = {
    "Mode": {"enum": ["read-only", "workspace-write"], "type": "string"},
    "Policy": {
        "oneOf": [
            {"enum": ["untrusted", "never"], "type": "string"},
            {
                "title": "Granular",
                "type": "object",
                "properties": {"granular": {"type": "boolean"}},
                "required": ["granular"],
            },
        ]
    },
    "Sandbox": {
        "oneOf": [
            {
                "type": "object",
                "properties": {"type": {"enum": ["readOnly"], "type": "string"}},
                "required": ["type"],
            },
            {
                "type": "object",
                "properties": {
                    "type": {"enum": ["workspaceWrite"], "type": "string"},
                    "roots": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["type"],
            },
        ]
    },
    "Output": {"type": "object", "properties": {"name": {"type": "string"}}},
}
PARAMS: dict[str, Any] = {
    "type": "object",
    "required": ["threadId", "mode"],
    "properties": {
        "threadId": {"type": "string"},
        "mode": {"$ref": "#/definitions/Mode"},
        "policy": {"anyOf": [{"$ref": "#/definitions/Policy"}, {"type": "null"}]},
        "sandbox": {"anyOf": [{"$ref": "#/definitions/Sandbox"}, {"type": "null"}]},
        "output": {"anyOf": [{"$ref": "#/definitions/Output"}, {"type": "null"}]},
        "ephemeral": {"type": ["boolean", "null"]},
        "limit": {"type": ["integer", "null"], "minimum": 0},
    },
}


def builder(fill: Any = None) -> Builder:
    tree = SchemaTree(DEFINITIONS)
    return Builder(tree, fill) if fill is not None else Builder(tree)


def test_a_minimal_value_holds_only_the_required_fields() -> None:
    assert builder().value(PARAMS, full=False) == {"threadId": "explore", "mode": "read-only"}


def test_a_full_value_holds_every_field_a_boolean_set() -> None:
    full = builder().value(PARAMS, full=True)
    assert set(full) == set(PARAMS["properties"])
    assert full["ephemeral"] is True
    assert full["policy"] == "untrusted"
    assert full["sandbox"] == {"type": "readOnly"}


def test_a_fixture_replaces_what_the_schema_would_make_by_the_field_s_path() -> None:
    def fill(path: Path, node: dict[str, Any]) -> Any:
        return "{{thread}}" if path == ("threadId",) else MISSING

    assert builder(fill).value(PARAMS, full=False)["threadId"] == "{{thread}}"


def test_an_enum_field_gives_each_of_its_values_in_turn() -> None:
    finite = builder().finite_values(PARAMS["properties"]["mode"], ("mode",))
    assert [f.label for f in finite] == ["read-only", "workspace-write"]


def test_a_union_of_an_enum_and_an_object_gives_every_value_and_the_object() -> None:
    finite = builder().finite_values(PARAMS["properties"]["policy"], ("policy",))
    assert [f.label for f in finite] == ["untrusted", "never", "Granular"]
    assert finite[-1].value == {"granular": False}


def test_a_tagged_union_gives_one_value_per_alternative_named_by_its_tag() -> None:
    finite = builder().finite_values(PARAMS["properties"]["sandbox"], ("sandbox",))
    assert [(f.label, f.value) for f in finite] == [
        ("readOnly", {"type": "readOnly"}),
        ("workspaceWrite", {"type": "workspaceWrite"}),
    ]


def test_an_optional_object_and_a_boolean_are_not_choices() -> None:
    made = builder()
    assert made.finite_values(PARAMS["properties"]["output"], ("output",)) == []
    assert made.finite_values(PARAMS["properties"]["ephemeral"], ("ephemeral",)) == []


def test_a_wrong_typed_value_is_of_a_type_the_field_does_not_take() -> None:
    made = builder()
    assert made.wrong_typed(PARAMS["properties"]["threadId"]) == 42
    assert made.wrong_typed(PARAMS["properties"]["limit"]) == "explore"
    assert made.wrong_typed(True) is MISSING  # a field that takes anything


def test_an_unknown_value_is_none_of_the_enumerated_ones() -> None:
    made = builder()
    assert made.unknown_value(PARAMS["properties"]["mode"], ("mode",)) == UNKNOWN_VALUE
    assert made.unknown_value(PARAMS["properties"]["sandbox"], ("sandbox",)) == {
        "type": "exploreUnknown"
    }
    assert made.unknown_value(PARAMS["properties"]["threadId"], ("threadId",)) is MISSING


def test_a_ref_wrapped_in_an_all_of_of_one_is_the_value_of_the_ref() -> None:
    # schemars writes a `$ref` with a default as `{"allOf": [ref], "default": ...}`
    # (sandboxPolicy's `networkAccess`): the value is the ref's, not an object.
    wrapped = {"allOf": [{"$ref": "#/definitions/Mode"}], "default": "read-only"}
    assert builder().value(wrapped, full=True) == "read-only"
    merged = {
        "allOf": [{"$ref": "#/definitions/Output"}, {"properties": {"n": {"type": "integer"}}}]
    }
    assert builder().value(merged, full=True) == {"name": "explore", "n": 1}
