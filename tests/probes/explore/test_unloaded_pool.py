"""The unloaded threads an exploration makes ahead: a share of the calls on one, made again
when they run out, so every call still gets an unloaded thread of its own."""

from __future__ import annotations

import asyncio

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.probes.domain.surface.exploration import exploration_aspect
from codex_probe.probes.explore import thread_lane
from codex_probe.probes.explore.plan import make_plan
from codex_probe.probes.explore.run import explore
from codex_probe.probes.explore.states import UNLOADED, ThreadLab
from codex_probe.probes.explore.thread_lane import unloaded_made_ahead
from codex_probe.rig.backends import make_backend

# Calls on an unloaded thread that codex answers (each takes its thread) and refuses (its
# thread serves the next): more answered ones than one made ahead at the share below.
CELLS = (
    "thread/read unloaded minimal",
    "thread/read unloaded full",
    "thread/resume unloaded minimal",
    "thread/resume unloaded full",
    "turn/interrupt unloaded minimal",
    "thread/name/set unloaded minimal",
)


def test_fewer_are_made_ahead_than_calls_but_as_many_as_a_release_was_seen_to_use() -> None:
    # 0.171.0: 97 calls on an unloaded thread, 53 of them answered (each took one).
    assert 53 <= unloaded_made_ahead(97) < 97
    assert unloaded_made_ahead(1) == 1
    assert unloaded_made_ahead(0) == 0


def test_a_pool_that_runs_dry_is_made_again_and_every_call_records_what_a_full_one_gives(
    default_codex: Installation, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = make_backend("real", DEFAULT_CODEX_VERSION)
    plan = make_plan(backend.schema_dir).only(set(CELLS))
    assert len(plan.cells) == len(CELLS)
    refills: list[int] = []
    refill = ThreadLab.refill_unloaded

    async def counted(lab: ThreadLab, copies: int) -> None:
        refills.append(copies)
        await refill(lab, copies)

    monkeypatch.setattr(ThreadLab, "refill_unloaded", counted)
    monkeypatch.setattr(thread_lane, "UNLOADED_AHEAD", 1.0)
    whole = asyncio.run(explore(backend, plan=plan))
    assert refills == []
    monkeypatch.setattr(thread_lane, "UNLOADED_AHEAD", 0.2)  # 2 made ahead for 6 calls
    dry = asyncio.run(explore(backend, plan=plan))
    assert refills and refills[0] <= len(CELLS) - 2
    schema = backend.schema_dir
    full_values = exploration_aspect(whole.to_json(), schema)
    assert not any("not run" in value for value in full_values.values())
    assert exploration_aspect(dry.to_json(), schema) == full_values
    assert [cell.state for cell in plan.cells] == [UNLOADED] * len(CELLS)
