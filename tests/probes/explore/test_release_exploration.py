"""A release run explores the release for its surface: all of it for the whole surface, the
cells a bisection names, nothing for the fake."""

from __future__ import annotations

import asyncio

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.probes.domain.surface.release import EXPLORATION
from codex_probe.probes.explore import release, run
from codex_probe.probes.explore.lane import Lane
from codex_probe.probes.explore.release import explore_release
from codex_probe.probes.explore.unanswered import Unanswered
from codex_probe.probes.runner.plan import RunPlan
from codex_probe.probes.runner.release_run import run_release
from codex_probe.probes.runner.selection import Selection, Subject
from codex_probe.rig.backends import make_backend

KEY = "thread/start none minimal"


def test_a_bisection_of_an_exploration_key_explores_that_one_cell(
    default_codex: Installation,
) -> None:
    selection = Selection.surface_only((), explore_cells=(KEY,))
    run = asyncio.run(run_release(RunPlan(DEFAULT_CODEX_VERSION, selection)))
    assert run.surface is not None
    assert list(run.surface.aspects[EXPLORATION]) == [KEY]
    assert run.surface.value(EXPLORATION, KEY)["answer"]["thread.status.type"] == '"idle"'
    assert not run.surface.missing
    assert isinstance(run.exploration, dict) and len(run.exploration["cells"]) == 1


def test_nothing_is_explored_for_the_fake_without_the_surface_or_for_another_part_of_it() -> None:
    fake = Subject("fake")
    whole = Selection.of(None)
    assert asyncio.run(explore_release(DEFAULT_CODEX_VERSION, whole, fake)) is None
    findings_only = Selection.of(["start-applies-instructions"])
    assert asyncio.run(explore_release(DEFAULT_CODEX_VERSION, findings_only, Subject())) is None
    one_scenario = Selection.surface_only(("start",))
    assert asyncio.run(explore_release(DEFAULT_CODEX_VERSION, one_scenario, Subject())) is None


def test_an_exploration_that_cannot_start_is_a_gap_of_the_surface_with_its_reason() -> None:
    selection = Selection.surface_only((), explore_cells=(KEY,))
    said = asyncio.run(explore_release("0.0.1", selection, Subject()))
    assert isinstance(said, str) and said.startswith("the exploration could not run: ")


def test_a_lane_whose_wait_ran_out_is_a_gap_with_its_reason_not_an_error_of_the_run(
    default_codex: Installation, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The lanes run in a task group, so a wait that ran out reaches the release as a group
    # (seen in CI under load); the error itself stands in for the lane here.
    async def lane_timed_out(*args: object, **kwargs: object) -> None:
        late = TimeoutError("wiretap: wanted 1 matching request(s), got 0 after 12.6s")
        raise ExceptionGroup("lanes", [ExceptionGroup("lane", [late])])

    monkeypatch.setattr(release, "explore", lane_timed_out)
    said = asyncio.run(explore_release(DEFAULT_CODEX_VERSION, Selection.of(None), Subject()))
    assert said == (
        "the exploration could not run: wiretap: wanted 1 matching request(s), got 0 after 12.6s"
    )


def test_a_lane_that_failed_otherwise_is_not_hidden_as_a_gap(
    default_codex: Installation, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def lane_broke(*args: object, **kwargs: object) -> None:
        raise ExceptionGroup("lanes", [TimeoutError("late"), KeyError("a harness bug")])

    monkeypatch.setattr(release, "explore", lane_broke)
    with pytest.raises(ExceptionGroup):
        asyncio.run(explore_release(DEFAULT_CODEX_VERSION, Selection.of(None), Subject()))


def test_the_exploration_of_a_release_is_given_what_earlier_releases_of_the_run_left_unanswered(
    default_codex: Installation, monkeypatch: pytest.MonkeyPatch
) -> None:
    given: list[object] = []

    async def recorded(*args: object, unanswered: object = None, **kwargs: object) -> None:
        given.append(unanswered)
        raise OSError("stop here")

    monkeypatch.setattr(release, "explore", recorded)
    learnt = Unanswered()
    learnt.add("turn/interrupt")
    asyncio.run(explore_release(DEFAULT_CODEX_VERSION, Selection.of(None), Subject(), learnt))
    asyncio.run(explore_release(DEFAULT_CODEX_VERSION, Selection.of(None), Subject()))
    assert given == [learnt, None]


def test_every_lane_of_an_exploration_given_what_was_learnt_asks_with_it(
    default_codex: Installation, monkeypatch: pytest.MonkeyPatch
) -> None:
    lanes: list[Lane] = []

    class Recorded(Lane):
        def __post_init__(self) -> None:
            super().__post_init__()
            lanes.append(self)

    monkeypatch.setattr(run, "Lane", Recorded)
    learnt = Unanswered()
    backend = make_backend("real", DEFAULT_CODEX_VERSION)
    asyncio.run(run.explore(backend, only={KEY}, unanswered=learnt))
    assert lanes and all(lane.unanswered is learnt for lane in lanes)
