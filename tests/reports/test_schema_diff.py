"""Schema drift: structural comparison of two generated schema folders, method by method."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness.codex.schema_shapes import load_shapes
from codex_probe.reporting.categories import category_of
from codex_probe.reporting.schema_allure import write_schema_results
from codex_probe.reporting.schema_diff import DRIVER_METHODS, SchemaDiff, diff_schemas
from codex_probe.reporting.schema_diff_text import render_text


def request(method: str, params_type: str) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["id", "method", "params"],
        "properties": {
            "id": {"type": "integer"},
            "method": {"type": "string", "enum": [method]},
            "params": {"$ref": f"#/definitions/{params_type}"},
        },
    }


THREAD = {
    "type": "object",
    "required": ["id"],
    "properties": {
        "id": {"type": "string"},
        "parent": {"anyOf": [{"$ref": "#/definitions/Thread"}, {"type": "null"}]},
    },
}


def write_schema(
    root: Path,
    *,
    start_params: dict[str, Any],
    extra_methods: list[str],
    start_params_name: str = "ThreadStartParams",
    response_fields: dict[str, Any] | None = None,
) -> Path:
    """A schema folder of the shape codex generates, holding thread/start and a few more."""
    root.mkdir(parents=True)
    (root / "v2").mkdir()
    definitions = {start_params_name: start_params, "Empty": {"type": "object"}}
    variants = [request("thread/start", start_params_name)]
    variants += [request(method, "Empty") for method in extra_methods]
    (root / "ClientRequest.json").write_text(
        json.dumps({"oneOf": variants, "definitions": definitions})
    )
    notification = {
        "type": "object",
        "properties": {
            "method": {"type": "string", "enum": ["turn/completed"]},
            "params": {"$ref": "#/definitions/TurnCompleted"},
        },
    }
    (root / "ServerNotification.json").write_text(
        json.dumps(
            {
                "oneOf": [notification],
                "definitions": {
                    "TurnCompleted": {
                        "type": "object",
                        "properties": {
                            "item": {
                                "oneOf": [
                                    {
                                        "type": "object",
                                        "properties": {
                                            "type": {"type": "string", "enum": ["text"]},
                                            "text": {"type": "string"},
                                        },
                                    },
                                    {
                                        "type": "object",
                                        "properties": {
                                            "type": {"type": "string", "enum": ["image"]},
                                            "url": {"type": "string"},
                                        },
                                    },
                                ]
                            }
                        },
                    }
                },
            }
        )
    )
    for name in ("ServerRequest.json", "ClientNotification.json"):
        (root / name).write_text(json.dumps({"oneOf": []}))
    response = {
        "type": "object",
        "required": ["thread"],
        "properties": {"thread": {"$ref": "#/definitions/Thread"}, **(response_fields or {})},
        "definitions": {"Thread": THREAD},
    }
    (root / "v2" / "ThreadStartResponse.json").write_text(json.dumps(response))
    return root


OLD_PARAMS = {
    "type": "object",
    "required": ["cwd"],
    "properties": {
        "cwd": {"type": "string"},
        "baseInstructions": {"type": ["string", "null"]},
        "sandbox": {"type": "string", "enum": ["read-only", "workspace-write", "on-failure"]},
        "serviceTier": {"type": ["string", "null"], "enum": ["fast", "flex", None]},
    },
}
NEW_PARAMS = {
    "type": "object",
    "required": ["cwd", "baseInstructions"],
    "properties": {
        "cwd": {"type": ["string", "null"]},
        "baseInstructions": {"type": ["string", "null"]},
        "sandbox": {"type": "string", "enum": ["read-only", "workspace-write", "danger"]},
        "serviceTier": {"type": ["string", "null"]},
        "threadSource": {"type": ["string", "null"]},
    },
}


@pytest.fixture
def drift(tmp_path: Path) -> SchemaDiff:
    old = write_schema(
        tmp_path / "old", start_params=OLD_PARAMS, extra_methods=["thread/rollback", "thread/read"]
    )
    new = write_schema(
        tmp_path / "new",
        start_params=NEW_PARAMS,
        extra_methods=["thread/revert", "thread/read"],
        response_fields={"instructionSources": {"type": "array", "items": {"type": "string"}}},
    )
    return diff_schemas(
        load_shapes(old), load_shapes(new), old_version="1.0.0", new_version="2.0.0"
    )


def changes(diff: SchemaDiff, method: str, part: str) -> dict[str, tuple[str, Any, Any]]:
    method_diff = next(d for d in diff.priority if d.method == method)
    found = getattr(method_diff, part).changes
    return {c.path: (c.change, c.old, c.new) for c in found}


def test_params_fields_added_removed_retyped_and_made_required_are_named(
    drift: SchemaDiff,
) -> None:
    assert changes(drift, "thread/start", "params") == {
        "baseInstructions": ("now required", "null|string", "null|string"),
        "cwd": ("retyped", "string", "null|string"),
        "sandbox": (
            "retyped",
            "enum(on-failure|read-only|workspace-write)",
            "enum(danger|read-only|workspace-write)",
        ),
        "serviceTier": ("retyped", "null|enum(fast|flex)", "null|string"),
        "threadSource": ("added", None, "null|string"),
    }


def test_the_response_is_compared_too_after_resolving_its_refs(drift: SchemaDiff) -> None:
    assert changes(drift, "thread/start", "response") == {
        "instructionSources": ("added", None, "array<string>"),
    }


def test_a_renamed_definition_with_the_same_fields_is_no_change(tmp_path: Path) -> None:
    old = write_schema(tmp_path / "a", start_params=OLD_PARAMS, extra_methods=[])
    new = write_schema(
        tmp_path / "b",
        start_params=OLD_PARAMS,
        extra_methods=[],
        start_params_name="NewThreadStartParams",
    )
    diff = diff_schemas(load_shapes(old), load_shapes(new), old_version="1", new_version="2")
    start = next(d for d in diff.priority if d.method == "thread/start")
    assert start.status == "unchanged"


def test_a_recursive_type_is_flattened_once_without_looping(tmp_path: Path) -> None:
    shapes = load_shapes(write_schema(tmp_path / "s", start_params=OLD_PARAMS, extra_methods=[]))
    response = shapes["client request"]["thread/start"].response
    assert response is not None
    assert set(response) == {"thread", "thread.id", "thread.parent"}
    assert response["thread.parent"] == {"type": "null|object", "required": False}


def test_each_variant_of_a_tagged_union_gets_a_path_of_its_own(tmp_path: Path) -> None:
    shapes = load_shapes(write_schema(tmp_path / "s", start_params=OLD_PARAMS, extra_methods=[]))
    params = shapes["server notification"]["turn/completed"].params
    assert params is not None
    assert "item<type=text>.text" in params and "item<type=image>.url" in params


def test_a_driver_method_that_went_is_removed_and_the_rest_are_summarized(
    drift: SchemaDiff,
) -> None:
    statuses = {d.method: d.status for d in drift.priority}
    assert statuses["thread/rollback"] == "removed"
    assert statuses["thread/read"] == "unchanged"
    assert statuses["turn/steer"] == "absent"  # in neither schema
    others = {d.method: d.status for d in drift.others["client request"]}
    assert others == {"thread/revert": "added"}


def test_text_puts_the_driver_methods_first_and_says_which_enum_values_moved(
    drift: SchemaDiff,
) -> None:
    text = render_text(drift)
    assert text.index("thread/start (client request): changed") < text.index("Everything else")
    assert "~ sandbox: enum values +danger -on-failure" in text
    assert "! baseInstructions: now required (null|string)" in text
    assert "thread/rollback (client request): REMOVED in 2.0.0" in text
    assert "    added: thread/revert" in text


def test_json_lists_every_change_for_machines(drift: SchemaDiff) -> None:
    document = json.loads(json.dumps(drift.to_json()))
    start = next(d for d in document["driver_methods"] if d["method"] == "thread/start")
    assert {"path": "threadSource", "change": "added", "old": None, "new": "null|string"} in (
        start["params"]["changes"]
    )
    assert document["others"]["client request"]["added"] == ["thread/revert"]


def test_one_allure_result_per_driver_method_failing_where_its_shape_drifted(
    drift: SchemaDiff, tmp_path: Path
) -> None:
    results = tmp_path / "allure-results"
    write_schema_results(drift, results)
    by_feature = {}
    for path in results.glob("*-result.json"):
        result = json.loads(path.read_text())
        feature = next(label["value"] for label in result["labels"] if label["name"] == "feature")
        by_feature[feature] = result
    assert set(DRIVER_METHODS) <= set(by_feature)
    start = by_feature["thread/start"]
    assert start["status"] == "failed"
    assert category_of("failed", start["statusDetails"]["message"]) == (
        "schema drift between versions"
    )
    assert by_feature["thread/read"]["status"] == "passed"
    assert by_feature["turn/steer"]["status"] == "skipped"
    attached = {a["name"]: results / a["source"] for a in start["attachments"]}
    assert "+ threadSource: null|string" in attached["changes.txt"].read_text()
