"""Two surfaces compared: every difference by aspect, what the driver would feel first."""

from __future__ import annotations

from typing import Any

from codex_probe.probes.domain.surface.diff import diff_surfaces
from codex_probe.probes.domain.surface.release import ASPECTS, Surface
from codex_probe.probes.runner.release import ReleaseRun
from codex_probe.probes.runner.release_run import surface_flips


def surface(version: str, missing: tuple[str, ...] = (), **aspects: dict[str, Any]) -> Surface:
    return Surface(version, {a: dict(aspects.get(a, {})) for a in ASPECTS}, missing)


def test_the_same_surface_has_no_difference() -> None:
    one = surface("1", answers={"s A thread/start": {"$": "object"}})
    assert diff_surfaces(one, one) == []


def test_a_change_names_its_aspect_key_and_both_values() -> None:
    before = surface("1", answers={"s A thread/list": {"$": "object"}})
    after = surface("2", answers={"s A thread/list": {"$": "array"}})
    [change] = diff_surfaces(before, after)
    assert change.to_json() == {
        "aspect": "answers",
        "key": "s A thread/list",
        "before": {"$": "object"},
        "after": {"$": "array"},
        "driver_relevant": False,
        "rule": "response-field-retyped",
        "severity": "ERR",
        "details": [
            {
                "rule": "response-field-retyped",
                "severity": "ERR",
                "where": "$",
                "before": "object",
                "after": "array",
            }
        ],
    }
    assert change.name == "answers s A thread/list"


def test_changes_the_driver_would_feel_come_first() -> None:
    before = surface(
        "1",
        answers={"s A thread/list": {"$": "object"}, "s B thread/resume": {"$": "object"}},
        schema={"client request thread/fork": {"params": None}},
    )
    after = surface(
        "2",
        answers={"s A thread/list": {"$": "array"}, "s B thread/resume": {"$": "array"}},
        schema={"client request thread/fork": {"params": {"x": "string"}}},
    )
    found = [(c.aspect, c.key, c.driver_relevant) for c in diff_surfaces(before, after)]
    assert found == [
        ("answers", "s B thread/resume", True),
        ("answers", "s A thread/list", False),
        ("schema", "client request thread/fork", False),
    ]


def test_a_refusal_of_a_request_the_driver_sends_is_driver_relevant() -> None:
    refused = {"code": -32600, "message": "thread not found: <id>", "driver_reads": "not_found"}
    before = surface("1", refusals={"errors turn-unloaded turn/start": refused})
    after = surface(
        "2",
        refusals={
            "errors turn-unloaded turn/start": {**refused, "message": "gone", "driver_reads": None}
        },
    )
    assert [c.driver_relevant for c in diff_surfaces(before, after)] == [True]


def test_notifications_matter_to_the_driver_when_those_it_waits_on_change() -> None:
    before = surface(
        "1",
        notifications={
            "s t turn/start": ["turn/started", "turn/completed"],
            "s u turn/start": ["turn/started", "turn/completed"],
        },
    )
    after = surface(
        "2",
        notifications={
            "s t turn/start": ["turn/started", "item/started:reasoning", "turn/completed"],
            "s u turn/start": ["turn/started"],
        },
    )
    relevant = {c.key: c.driver_relevant for c in diff_surfaces(before, after)}
    assert relevant == {"s t turn/start": False, "s u turn/start": True}


def test_the_schema_of_a_method_the_driver_sends_or_a_notification_it_reads_is_relevant() -> None:
    before = surface("1")
    after = surface(
        "2",
        schema={
            "client request turn/steer": {"params": None},
            "server notification turn/completed": {"params": None},
            "server notification turn/started": {"params": None},
        },
    )
    relevant = {c.key: c.driver_relevant for c in diff_surfaces(before, after)}
    assert relevant == {
        "client request turn/steer": True,
        "server notification turn/completed": True,
        "server notification turn/started": False,
    }


def test_a_scenario_missing_on_either_side_is_a_gap_not_a_change() -> None:
    before = surface("1", answers={"start A thread/start": {"$": "object"}})
    after = surface("2", missing=("start",))
    assert diff_surfaces(before, after) == []


def test_repeated_runs_name_every_surface_key_that_is_not_the_same_in_all() -> None:
    def run(value: str) -> ReleaseRun:
        found = ReleaseRun("1", {}, {}, None, {})
        found.surface = surface("1", answers={"s A x/y": {"$": value}, "s B x/z": {"$": "null"}})
        return found

    assert surface_flips([run("object"), run("object")]) == []
    assert surface_flips([run("object"), run("object"), run("array")]) == ["answers s A x/y"]
