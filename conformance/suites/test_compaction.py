"""thread/compact/start: the response, the compaction turn, and instructions after it (spec 5.1)."""

from __future__ import annotations

import uuid

import pytest

from codex_probe.conformance.marks import check
from codex_probe.rig.session import Session

pytestmark = pytest.mark.asyncio


@check("CONF-COMPACT-001")
async def test_compaction_start_answers_an_empty_object(codex_session: Session) -> None:
    await codex_session.open()
    thread_id = (await codex_session.start_thread())["id"]
    first = await codex_session.run_turn(thread_id, "one")
    answer, turn = await codex_session.compact(thread_id, {first["id"]})
    assert answer == {}, f"thread/compact/start answered {answer!r}"
    assert turn["status"] == "completed", turn


@check("CONF-COMPACT-002")
async def test_compaction_runs_as_a_turn_with_one_compaction_item_and_one_model_request(
    codex_session: Session,
) -> None:
    await codex_session.open()
    thread_id = (await codex_session.start_thread())["id"]
    first = await codex_session.run_turn(thread_id, "one")
    requests_before = len(codex_session.tap.model_requests())
    _, turn = await codex_session.compact(thread_id, {first["id"]})
    assert turn["status"] == "completed", turn
    items = [
        m["params"]["item"]
        for m in codex_session.processes[-1].messages("recv")
        if isinstance(m, dict)
        and m.get("method") == "item/completed"
        and (m.get("params") or {}).get("turnId") == turn["id"]
    ]
    assert [i.get("type") for i in items] == ["contextCompaction"], items
    asked = len(codex_session.tap.model_requests()) - requests_before
    assert asked == 1, f"compaction made {asked} model requests"


@check("CONF-COMPACT-003")
async def test_start_time_instructions_survive_compaction(codex_session: Session) -> None:
    await codex_session.open()
    base, developer = f"BASE-{uuid.uuid4().hex}", f"DEV-{uuid.uuid4().hex}"
    thread_id = (
        await codex_session.start_thread(baseInstructions=base, developerInstructions=developer)
    )["id"]
    first = await codex_session.run_turn(thread_id, "one")
    _, compaction = await codex_session.compact(thread_id, {first["id"]})
    assert compaction["status"] == "completed", compaction
    await codex_session.run_turn(thread_id, "after compaction")
    last = codex_session.model_bodies()[-1]
    assert "after compaction" in last, "the last model request is not the turn after compaction"
    assert base in last, "baseInstructions are gone after compaction"
    assert developer in last, "developerInstructions are gone after compaction"
