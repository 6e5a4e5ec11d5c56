"""Which calls a lane waits on after their answer, for what a task of codex's own says."""

from __future__ import annotations

from typing import Any

import pytest

from codex_probe.probes.explore.lane import _loads_with_config
from codex_probe.probes.explore.plan import Cell

CONFIG = {"threadId": "{{thread}}", "config": {"explore": "explore"}}


def cell(method: str, state: str, params: Any) -> Cell:
    return Cell(method, state, "full", params)


@pytest.mark.parametrize(
    ("method", "state"),
    [("thread/start", "none"), ("thread/fork", "idle"), ("thread/resume", "unloaded")],
)
def test_a_call_that_loads_a_thread_with_settings_of_its_own_waits_for_their_warning(
    method: str, state: str
) -> None:
    assert _loads_with_config(cell(method, state, CONFIG), CONFIG)


@pytest.mark.parametrize(
    ("method", "state", "params"),
    [
        ("thread/resume", "idle", CONFIG),  # loaded already: nothing is read again
        ("thread/fork", "idle", {"threadId": "{{thread}}"}),
        ("thread/fork", "idle", {"threadId": "{{thread}}", "config": {}}),
        ("thread/start", "none", {"config": None}),
        ("thread/name/set", "idle", CONFIG),
        ("thread/start", "none", [CONFIG]),
    ],
)
def test_a_call_that_loads_no_thread_or_brings_no_settings_does_not_wait(
    method: str, state: str, params: Any
) -> None:
    assert not _loads_with_config(cell(method, state, params), params)
