"""A cell on a copy of its own that has only to wait (for a call known to go unanswered, for
a notification that may come) lets its lane go on, and is recorded as if it had not."""

from __future__ import annotations

import asyncio

from codex_probe.harness.codex.install import Installation, install
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION, SPEC_CODEX_VERSION
from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.probes.domain.surface.exploration import exploration_aspect
from codex_probe.probes.explore import run
from codex_probe.probes.explore.record import CellRecord, ExplorationRecord
from codex_probe.probes.explore.unanswered import UNANSWERED_AGAIN_S, Unanswered
from codex_probe.rig.backends import make_backend

INTERRUPT = "turn/interrupt idle minimal"
TURN = "turn/start idle minimal"


def explored(
    version: str, cells: set[str], learnt: Unanswered | None
) -> tuple[ExplorationRecord, list[Transcript]]:
    ensure_schema(install(version))
    lanes: list[Transcript] = []
    record = asyncio.run(
        run.explore(
            make_backend("real", version), only=cells, unanswered=learnt, on_lane=lanes.append
        )
    )
    return record, lanes


def sent(transcript: Transcript) -> list[str]:
    return [
        str(entry.message.get("method"))
        for entry in transcript.entries
        if entry.direction == "send" and isinstance(entry.message, dict)
    ]


def when_sent(transcript: Transcript, method: str, after: float = 0.0) -> float:
    return next(
        entry.time
        for entry in transcript.entries
        if entry.direction == "send"
        and isinstance(entry.message, dict)
        and entry.message.get("method") == method
        and entry.time > after
    )


def cell(record: ExplorationRecord, key: str) -> CellRecord:
    return next(found for found in record.cells if found.key == key)


def test_a_lane_goes_on_from_a_call_known_to_go_unanswered_while_its_deadline_runs() -> None:
    # 0.120.0 never answers a turn/interrupt of a thread with no turn (2 s once learnt).
    learnt = Unanswered()
    learnt.add("turn/interrupt")
    record, lanes = explored(SPEC_CODEX_VERSION, {INTERRUPT, TURN}, learnt)
    assert cell(record, INTERRUPT).outcome == "unanswered"
    assert cell(record, TURN).outcome == "answered"
    assert [s.where for s in record.surprises] == [INTERRUPT]
    (lane,) = [lane for lane in lanes if "turn/interrupt" in sent(lane)]
    asked = when_sent(lane, "turn/interrupt")
    # The next cell's turn was asked for while the unanswered call's deadline ran.
    assert asked < when_sent(lane, "turn/start", after=asked) < asked + UNANSWERED_AGAIN_S


def test_a_call_thought_to_go_unanswered_that_is_answered_is_recorded_as_any_other(
    default_codex: Installation,
) -> None:
    learnt = Unanswered()
    learnt.add("turn/interrupt")
    thought, _ = explored(DEFAULT_CODEX_VERSION, {INTERRUPT, TURN}, learnt)
    known, _ = explored(DEFAULT_CODEX_VERSION, {INTERRUPT, TURN}, None)
    assert cell(thought, INTERRUPT).outcome != "unanswered"
    schema = ensure_schema(default_codex)
    assert exploration_aspect(thought.to_json(), schema) == exploration_aspect(
        known.to_json(), schema
    )


def test_what_codex_says_of_a_parked_cells_thread_after_the_lane_went_on_is_that_cells() -> None:
    # 0.120.0 closes a thread its last subscriber leaves, from a task of its own.
    keys = {"thread/unsubscribe idle minimal", "thread/unsubscribe idle full", TURN}
    record, _ = explored(SPEC_CODEX_VERSION, keys, None)
    for key in sorted(keys - {TURN}):
        assert "thread/closed" in [n["method"] for n in cell(record, key).notifications], key
    assert "thread/closed" not in [n["method"] for n in cell(record, TURN).notifications]
