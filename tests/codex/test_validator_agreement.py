"""The fast validator and jsonschema give one answer on every message: a message the fast one
passes is one jsonschema finds nothing wrong with (else a violation would go unreported),
and one it fails is one jsonschema words a violation of (else a report would be empty)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.codex.validator import UNION_FILES, Checker
from codex_probe.probes.explore.plan import Plan, make_plan
from codex_probe.probes.explore.schema_values import Builder, SchemaTree

pytestmark = pytest.mark.real

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def variant_checkers(schema_dir: Path, kind: str) -> dict[str, Checker]:
    union = json.loads((schema_dir / UNION_FILES[kind]).read_text())
    definitions = union.get("definitions", {})
    return {
        variant["properties"]["method"]["enum"][0]: Checker({**variant, "definitions": definitions})
        for variant in union["oneOf"]
    }


def agree(checker: Checker, instance: Any) -> None:
    fast_says_valid = not checker.violations(instance)
    full_says_valid = not list(Draft7Validator(checker.schema).iter_errors(instance))
    assert fast_says_valid == full_says_valid, json.dumps(instance)[:400]


@pytest.fixture(scope="module")
def schema_dir(default_codex: Installation) -> Path:
    return ensure_schema(default_codex)


@pytest.fixture(scope="module")
def plan(schema_dir: Path) -> Plan:
    return make_plan(schema_dir)


@pytest.fixture(scope="module")
def requests(schema_dir: Path) -> dict[str, Checker]:
    return variant_checkers(schema_dir, "client request")


def test_every_call_of_the_exploration_valid_or_not_gets_one_answer_from_both(
    plan: Plan, requests: dict[str, Checker]
) -> None:
    kinds = set()
    for cell in [c for c in plan.cells if c.kind != "approval"]:  # those answer a server request
        agree(requests[cell.method], {"id": 1, "method": cell.method, "params": cell.params})
        kinds.add(cell.kind)
    assert {"valid", "invalid"} <= kinds


def test_every_server_notification_built_from_the_schema_gets_one_answer_from_both(
    schema_dir: Path,
) -> None:
    union = json.loads((schema_dir / UNION_FILES["server notification"]).read_text())
    builder = Builder(SchemaTree(union.get("definitions") or {}))
    checkers = variant_checkers(schema_dir, "server notification")
    for method, checker in checkers.items():
        params = checker.schema["properties"].get("params", {})
        for full in (False, True):
            message = {"method": method, "params": builder.value(params, full=full)}
            agree(checker, message)
            agree(checker, {**message, "params": "not an object"})


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_call_broken_at_any_place_gets_one_answer_from_both(
    data: st.DataObject, plan: Plan, requests: dict[str, Checker]
) -> None:
    cell = data.draw(st.sampled_from([c for c in plan.cells if c.kind == "valid"]))
    params = json.loads(json.dumps(cell.params))
    places = list(_places(params))
    if places:
        holder, key = data.draw(st.sampled_from(places))
        how = data.draw(st.sampled_from(["replace", "remove", "add"]))
        if how == "replace":
            holder[key] = data.draw(JSON_VALUES)
        elif how == "remove" and isinstance(holder, dict):
            del holder[key]
        elif isinstance(holder, dict):
            holder[data.draw(st.text(max_size=8))] = data.draw(JSON_VALUES)
    agree(requests[cell.method], {"id": 1, "method": cell.method, "params": params})


def _places(value: Any) -> Any:
    """(container, key) of every value inside `value`."""
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else []
    )
    for key, inner in items:
        yield value, key
        yield from _places(inner)


def test_a_schema_the_fast_validator_will_not_compile_is_checked_by_jsonschema_alone() -> None:
    checker = Checker({"type": "string", "pattern": r"a\Z"})  # Python's regex, not Rust's
    assert checker.violations("xa") == []
    assert [str(e.validator) for e in checker.violations("ab")] == ["pattern"]
    assert [str(e.validator) for e in checker.violations(42)] == ["type"]
