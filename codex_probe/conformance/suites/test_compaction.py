"""thread/compact/start: the response, the compaction turn, and instructions after it (spec 5.1)."""

from __future__ import annotations

import pytest

from codex_probe.conformance.marks import check
from codex_probe.rig.session import Session

pytestmark = pytest.mark.asyncio


@check(
    "CONF-COMPACT-001",
    title="thread/compact/start answers {}",
    protects="spec 5.1: manual compaction is how compaction safety is verified",
)
async def test_compaction_start_answers_an_empty_object(codex_session: Session) -> None:
    await codex_session.open()
    thread_id = (await codex_session.start_thread())["id"]
    first = await codex_session.run_turn(thread_id, "one")
    answer, turn = await codex_session.compact(thread_id, {first["id"]})
    assert answer == {}, f"thread/compact/start answered {answer!r}"
    assert turn["status"] == "completed", turn


@check(
    "CONF-COMPACT-002",
    title="compaction runs as a turn holding one contextCompaction item and asks the model once",
    protects="spec 5.1 verification steps 2-3",
)
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
