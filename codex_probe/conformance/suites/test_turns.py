"""turn/start, turn/steer and turn/interrupt: the turns the driver starts and delivers into."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from codex_probe.conformance.holds import Holds, hold_turn
from codex_probe.conformance.marks import check
from codex_probe.harness.driver.params import text_input
from codex_probe.rig.session import Session
from codex_probe.rig.wiretap import Reply

pytestmark = pytest.mark.asyncio

TURN_METHODS = ("turn/started", "item/started", "item/completed", "turn/completed")
# Long enough for a steer to land while the answer is held back, short enough to wait out.
SLOW_ANSWER_S = 1.5
# A refusal takes milliseconds; a server that never answers must not cost the full deadline.
REFUSAL_DEADLINE_S = 5.0


def notifications_of_turn(session: Session, turn_id: str) -> list[dict[str, Any]]:
    """The turn and item notifications of one turn, in arrival order."""
    return [
        message
        for message in session.processes[-1].messages("recv")
        if isinstance(message, dict)
        and message.get("method") in TURN_METHODS
        and _turn_id(message) == turn_id
    ]


def _turn_id(message: dict[str, Any]) -> Any:
    params = message.get("params") or {}
    turn = params.get("turn")
    return turn.get("id") if isinstance(turn, dict) else params.get("turnId")


@check(
    "CONF-TURN-001",
    title="turn/start answers an inProgress turn with an id and no items",
    protects="spec 4.6 prepareInitialThread / 4.7: the driver keeps the turn id",
)
async def test_turn_start_answers_an_in_progress_turn_with_an_id_and_no_items(
    codex_session: Session,
) -> None:
    await codex_session.open()
    thread_id = (await codex_session.start_thread())["id"]
    result = await codex_session.request(
        "turn/start", {"threadId": thread_id, "input": text_input("hello")}
    )
    turn = result["turn"]
    assert isinstance(turn.get("id"), str) and turn["id"], turn
    assert turn.get("status") == "inProgress", turn
    assert turn.get("items") == [], turn


@check(
    "CONF-TURN-002",
    title="a turn notifies turn/started, then its items, then turn/completed (completed)",
    protects="spec 4.6 EncodeStdinMessage: the next safe input boundary is turn/completed",
)
async def test_a_turn_notifies_started_then_items_then_completed(
    codex_session: Session,
) -> None:
    await codex_session.open()
    thread_id = (await codex_session.start_thread())["id"]
    completed = await codex_session.run_turn(thread_id, "hello")
    assert completed["status"] == "completed", completed
    methods = [m["method"] for m in notifications_of_turn(codex_session, completed["id"])]
    assert methods[0] == "turn/started" and methods[-1] == "turn/completed", methods
    assert methods.count("turn/started") == 1 and methods.count("turn/completed") == 1, methods
    assert set(methods[1:-1]) <= {"item/started", "item/completed"}, methods


@check(
    "CONF-TURN-003",
    title="a turn's items: our userMessage and the model's agentMessage, each started then "
    "completed",
    protects="DESIGN 'One path': the observation pipeline reads items",
)
async def test_a_turn_holds_our_user_message_and_the_model_answer(
    codex_session: Session,
) -> None:
    await codex_session.open()
    thread_id = (await codex_session.start_thread())["id"]
    text, answer = f"USER-{uuid.uuid4().hex}", f"ANSWER-{uuid.uuid4().hex}"
    codex_session.tap.queue_replies(answer)
    completed = await codex_session.run_turn(thread_id, text)
    notes = notifications_of_turn(codex_session, completed["id"])
    started = [n["params"]["item"] for n in notes if n["method"] == "item/started"]
    done = [n["params"]["item"] for n in notes if n["method"] == "item/completed"]
    assert [i["id"] for i in started] == [i["id"] for i in done], (started, done)
    users = [i for i in done if i.get("type") == "userMessage"]
    agents = [i for i in done if i.get("type") == "agentMessage"]
    assert len(users) == 1 and text in str(users[0].get("content")), done
    assert [a.get("text") for a in agents] == [answer], done


@check(
    "CONF-STEER-001",
    title="turn/steer on the active turn answers its id and the steered text reaches the model",
    protects="spec 4.6 EncodeStdinMessage: ack-aware delivery into an active turn",
)
async def test_steer_joins_the_active_turn_and_its_text_reaches_the_model(
    codex_session: Session,
) -> None:
    await codex_session.open()
    thread_id = (await codex_session.start_thread())["id"]
    codex_session.tap.queue_replies(Reply(text="slow answer", delay_s=SLOW_ANSWER_S))
    turn = await codex_session.start_turn(thread_id, "start")
    steer = f"STEER-{uuid.uuid4().hex}"
    answer = await codex_session.request(
        "turn/steer",
        {"threadId": thread_id, "expectedTurnId": turn["id"], "input": text_input(steer)},
    )
    assert answer == {"turnId": turn["id"]}, answer
    completed = (await codex_session.wait_turn("turn/completed", turn["id"]))["turn"]
    assert completed["status"] == "completed", completed
    assert steer in codex_session.model_bodies()[-1], "the steered text never reached the model"


@check(
    "CONF-INTERRUPT-001",
    title="turn/interrupt of the active turn answers {} and the turn completes 'interrupted'",
    protects="DESIGN: every turn the harness starts ends under a deadline",
)
async def test_interrupt_ends_the_active_turn_as_interrupted(
    codex_session: Session, codex_holds: Holds
) -> None:
    await codex_session.open()
    thread_id = (await codex_session.start_thread())["id"]
    turn, marker = await hold_turn(codex_session, codex_holds, thread_id)
    try:
        answer = await codex_session.request(
            "turn/interrupt", {"threadId": thread_id, "turnId": turn["id"]}
        )
        assert answer == {}, answer
        completed = (await codex_session.wait_turn("turn/completed", turn["id"]))["turn"]
    finally:
        codex_holds.release(marker)
    assert completed["status"] == "interrupted", completed
