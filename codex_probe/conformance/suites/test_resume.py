"""thread/resume and thread/unsubscribe: what the driver's resume and fallback rest on."""

from __future__ import annotations

import uuid

import pytest

from codex_probe.conformance.holds import Holds, hold_turn
from codex_probe.conformance.marks import check
from codex_probe.conformance.resume import resume_thread
from codex_probe.conformance.shapes import (
    NO_ROLLOUT,
    expect_refusal,
)
from codex_probe.rig.session import Session

pytestmark = pytest.mark.asyncio

IDLE = {"type": "idle"}


@check(
    "CONF-RESUME-001",
    title="thread/resume of a loaded thread answers it with its turns",
    protects="spec 4.6 resumeThread: a successful resume is followed by ResumePrompt",
)
async def test_resume_of_a_loaded_thread_answers_it_with_its_turns(
    codex_session: Session,
) -> None:
    await codex_session.open()
    thread_id = (await codex_session.start_thread())["id"]
    turn = await codex_session.run_turn(thread_id, "one")
    thread = await resume_thread(codex_session, thread_id)
    assert thread.get("status") == IDLE, thread.get("status")
    assert [(t["id"], t["status"]) for t in thread["turns"]] == [(turn["id"], "completed")]


@check(
    "CONF-RESUME-002",
    title="after a restart, thread/resume loads the thread from disk and it takes turns again",
    protects="spec 4.5 / 4.6: sessions survive daemon restarts by thread id",
)
async def test_after_a_restart_resume_loads_the_thread_and_it_takes_turns(
    codex_session: Session,
) -> None:
    await codex_session.open()
    thread_id = (await codex_session.start_thread())["id"]
    turn = await codex_session.run_turn(thread_id, "one")
    await codex_session.restart()
    thread = await resume_thread(codex_session, thread_id)
    assert thread.get("status") == IDLE, thread.get("status")
    assert [(t["id"], t["status"]) for t in thread["turns"]] == [(turn["id"], "completed")]
    again = await codex_session.run_turn(thread_id, "two")
    assert again["status"] == "completed", again


@check(
    "CONF-RESUME-006",
    title="a thread that never had a turn resumes as not found, loaded or after a restart",
    protects="driver rule: a thread without a rollout falls back to a fresh thread (spec 4.5 #2)",
)
async def test_a_thread_that_never_had_a_turn_resumes_as_not_found_loaded_or_not(
    codex_session: Session,
) -> None:
    await codex_session.open()
    loaded = (await codex_session.start_thread())["id"]
    await expect_refusal(
        codex_session.request("thread/resume", {"threadId": loaded}), NO_ROLLOUT, thread_id=loaded
    )
    restarted = (await codex_session.start_thread())["id"]
    await codex_session.restart()
    await expect_refusal(
        codex_session.request("thread/resume", {"threadId": restarted}),
        NO_ROLLOUT,
        thread_id=restarted,
    )


@check(
    "CONF-RESUME-007",
    title="resume and read of a thread with an active turn report it active, that turn inProgress",
    protects="spec 4.6 resolveTurnRequestForDirectDelivery: steer an active turn, else start one",
)
async def test_resume_and_read_of_a_thread_with_an_active_turn_list_it_in_progress(
    codex_session: Session, codex_holds: Holds
) -> None:
    await codex_session.open()
    thread_id = (await codex_session.start_thread())["id"]
    first = await codex_session.run_turn(thread_id, "one")
    turn, marker = await hold_turn(codex_session, codex_holds, thread_id)
    expected = [(first["id"], "completed"), (turn["id"], "inProgress")]
    try:
        read = (
            await codex_session.request(
                "thread/read", {"threadId": thread_id, "includeTurns": True}
            )
        )["thread"]
        resumed = await resume_thread(codex_session, thread_id)
    finally:
        codex_holds.release(marker)
    for answer, thread in (("thread/read", read), ("thread/resume", resumed)):
        assert thread["status"]["type"] == "active", f"{answer}: status {thread['status']}"
        listed = [(t["id"], t["status"]) for t in thread["turns"]]
        assert listed == expected, f"{answer}: turns {listed}, expected {expected}"


@check(
    "CONF-UNSUBSCRIBE-001",
    title="thread/unsubscribe answers 'unsubscribed' and the thread can be resumed afterwards",
    protects="spec 6.3 cutover: a connection lets go of a thread and may take it up again",
)
async def test_unsubscribe_lets_go_of_a_thread_that_can_be_resumed_afterwards(
    codex_session: Session,
) -> None:
    await codex_session.open()
    thread_id = (await codex_session.start_thread())["id"]
    turn = await codex_session.run_turn(thread_id, "one")
    answer = await codex_session.request("thread/unsubscribe", {"threadId": thread_id})
    assert answer == {"status": "unsubscribed"}, answer
    thread = await resume_thread(codex_session, thread_id)
    assert [t["id"] for t in thread["turns"]] == [turn["id"]], thread["turns"]
    again = await codex_session.run_turn(thread_id, "two")
    assert again["status"] == "completed", again


@check(
    "CONF-UNSUBSCRIBE-002",
    title="thread/unsubscribe of a thread that is not loaded answers 'notLoaded'",
    protects="DESIGN 'Rules': refusals are explicit answers, never silence",
)
async def test_unsubscribe_of_a_thread_not_loaded_answers_not_loaded(
    codex_session: Session,
) -> None:
    await codex_session.open()
    answer = await codex_session.request("thread/unsubscribe", {"threadId": str(uuid.uuid4())})
    assert answer == {"status": "notLoaded"}, answer
