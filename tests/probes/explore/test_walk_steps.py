"""A walk's steps as the walk records them (probes/explore/walks.py), on a lab of stand-ins."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from codex_probe.probes.explore.lane import Lane
from codex_probe.probes.explore.states import StateUnreachable, Subject, ThreadLab
from codex_probe.probes.explore.walks import Step, walk


class _Lab:
    """Starts threads; cannot roll back, as a release without thread/rollback or revert."""

    session = None

    async def start(self) -> Subject:
        return Subject("thread-1")

    async def roll_back(self, subject: Subject) -> None:
        raise StateUnreachable("the release has neither thread/rollback nor thread/revert")

    async def turn(self, subject: Subject) -> None:
        return None


class _Lane:
    def violations_since_walk(self) -> list[str]:
        return []


def test_a_step_the_release_cannot_do_is_the_walks_outcome_not_a_crash() -> None:
    steps = [Step("start", made="T0"), Step("roll back", thread="T0"), Step("turn", thread="T0")]
    lane, lab = cast(Lane, _Lane()), cast(ThreadLab, cast(Any, _Lab()))
    result = asyncio.run(walk(lane, lab, 2, steps, "0.120.0"))
    assert result.done == 3 and result.surprise is None
    assert result.answers[1] == (
        "cannot: the release has neither thread/rollback nor thread/revert"
    )
