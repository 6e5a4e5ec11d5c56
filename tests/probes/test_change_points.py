"""Where a value changes along a range of releases, for any kind of row."""

from __future__ import annotations

from codex_probe.probes.releases.change_points import (
    ChangePoint,
    Row,
    change_points,
    same,
    trimmed,
)


def test_a_change_point_names_the_first_release_that_differs_and_the_last_that_did_not() -> None:
    row = Row("verdict", "a", {"0.10.0": "changed", "0.2.0": "holds", "0.9.0": "holds"})
    assert change_points([row]) == [
        ChangePoint("verdict", "a", "0.10.0", "0.9.0", "holds", "changed")
    ]


def test_a_release_without_a_value_is_skipped_over_not_a_change() -> None:
    row = Row("surface", "answers s A x/y", {"0.1.0": {"$": "object"}, "0.3.0": {"$": "array"}})
    [point] = change_points([row])
    assert (point.last_same, point.first_changed) == ("0.1.0", "0.3.0")


def test_any_kind_of_row_gives_change_points_the_same_way_in_the_rows_order() -> None:
    rows = [
        Row("watch", "upstream#123", {"0.1.0": "present", "0.2.0": "fixed", "0.3.0": "present"}),
        Row("observed", "a", {"0.1.0": {"x": 1}, "0.2.0": {"x": 1}}),
    ]
    found = [(p.kind, p.key, p.first_changed) for p in change_points(rows)]
    assert found == [("watch", "upstream#123", "0.2.0"), ("watch", "upstream#123", "0.3.0")]


def test_a_change_point_reads_back_from_its_json() -> None:
    point = ChangePoint("surface", "schema client request x", "0.2.0", "0.1.0", None, {"p": 1})
    assert ChangePoint.from_json(point.to_json()) == point


def test_objects_are_cut_down_to_the_parts_that_differ() -> None:
    before = {"params": {"a": "string", "b": "integer", "c": "null"}, "same": [1]}
    after = {"params": {"a": "string", "b": "string", "d": "boolean"}, "same": [1]}
    assert trimmed(before, after) == (
        {"params": {"b": "integer", "c": "null"}},
        {"params": {"b": "string", "d": "boolean"}},
    )
    assert trimmed(["x"], ["y"]) == (["x"], ["y"])


def test_values_are_the_same_as_json_is_whatever_the_key_order_not_across_types() -> None:
    assert same({"a": [1, {"b": None}], "c": "x"}, {"c": "x", "a": [1, {"b": None}]})
    assert not same({"a": 1}, {"a": True})
    assert not same([1], [1.0])
    assert not same({"a": 1}, {"a": 1, "b": 2})
