"""Parameters the lifecycle machine draws fit the schema of the version they are drawn for."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from jsonschema import Draft7Validator

from codex_probe.conformance import strategies
from codex_probe.harness.codex.install import install
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.codex.versions import DEFAULT_MATRIX

pytestmark = pytest.mark.real  # the schema comes from the codex-cli binary (npm)

FIELDS = ["baseInstructions", "developerInstructions", "sandbox", "approvalPolicy"]


@pytest.mark.parametrize("version", DEFAULT_MATRIX)
@pytest.mark.parametrize("name", ["ThreadStartParams", "ThreadResumeParams"])
def test_drawn_start_and_resume_parameters_fit_the_version_schema(version: str, name: str) -> None:
    schema_dir = ensure_schema(install(version))
    schema = strategies.params_schema(schema_dir, name)
    validator = Draft7Validator(schema)

    @settings(max_examples=60, deadline=None)
    @given(strategies.params(schema_dir, name, FIELDS))
    def fits(params: dict[str, Any]) -> None:
        body = {**params, "threadId": "t"} if name == "ThreadResumeParams" else params
        errors = [e.message for e in validator.iter_errors(body)]
        assert not errors, (params, errors)
        assert set(params) <= set(FIELDS)

    fits()


@pytest.mark.parametrize("version", DEFAULT_MATRIX)
def test_drawn_turn_text_is_a_valid_text_input(version: str) -> None:
    schema_dir = ensure_schema(install(version))
    validator = Draft7Validator(strategies.params_schema(schema_dir, "TurnStartParams"))

    @settings(max_examples=60, deadline=None)
    @given(strategies.user_text(schema_dir))
    def fits(text: str) -> None:
        body = {"threadId": "t", "input": [{"type": "text", "text": text, "text_elements": []}]}
        assert not list(validator.iter_errors(body))
        assert text.strip()

    fits()


def test_enums_and_nullable_unions_become_their_values_and_objects_are_left_out() -> None:
    schema = {
        "anyOf": [
            {"$ref": "#/definitions/Mode"},
            {"type": "object", "properties": {"granular": {"type": "object"}}},
            {"type": "null"},
        ]
    }
    drawn = strategies.from_schema(schema, {"Mode": {"enum": ["a", "b"]}})
    assert drawn is not None

    @settings(max_examples=50, deadline=None)
    @given(drawn)
    def only_leaves(value: object) -> None:
        assert value in ("a", "b", None)

    only_leaves()
    assert strategies.from_schema({"type": "object"}, {}) is None
    assert strategies.from_schema({"type": "array"}, {}) is None
