"""thread/start and thread/read: the thread the driver starts, and what can be read of it."""

from __future__ import annotations

import uuid

import pytest

from codex_probe.conformance.marks import check
from codex_probe.conformance.shapes import TURNS_BEFORE_FIRST_TURN, expect_refusal
from codex_probe.rig.session import Session

pytestmark = pytest.mark.asyncio

IDLE = {"type": "idle"}


def is_uuid(value: object) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


@check(
    "CONF-THREAD-START-001",
    title="thread/start answers an idle thread with an id, no turns and the binary's version",
    protects="spec 4.6 startThread: the driver reads result.thread.id",
)
async def test_thread_start_answers_an_idle_thread_with_an_id_and_no_turns(
    codex_session: Session,
) -> None:
    await codex_session.open()
    thread = await codex_session.start_thread()
    assert is_uuid(thread.get("id")), f"thread id {thread.get('id')!r} is not a UUID"
    assert thread.get("status") == IDLE, thread.get("status")
    assert thread.get("turns") == [], thread.get("turns")
    assert thread.get("cliVersion") == codex_session.backend.version, thread.get("cliVersion")


@check(
    "CONF-THREAD-START-002",
    title="thread/started follows the thread/start response for the same thread",
    protects="spec 4.6 startThread; DESIGN: notifications are buffered until waited for",
)
async def test_thread_started_follows_for_the_same_thread(codex_session: Session) -> None:
    await codex_session.open()
    thread = await codex_session.start_thread()
    started = await codex_session.wait_thread("thread/started", thread["id"])
    assert started["thread"]["status"] == IDLE, started["thread"].get("status")


@check(
    "CONF-THREAD-START-004",
    title='thread/start accepts "" and null instruction fields (string|null in the schema)',
    protects='spec 4.2 / 5.3 / 6.2: DeveloperInstructions "" expresses a cleared AGENTS.md',
)
async def test_thread_start_accepts_empty_and_null_instruction_fields(
    codex_session: Session,
) -> None:
    await codex_session.open()
    for base, developer in [("", ""), (None, None), ("", None), (None, "")]:
        thread = await codex_session.start_thread(
            baseInstructions=base, developerInstructions=developer
        )
        assert is_uuid(thread.get("id")), (base, developer, thread)


@check(
    "CONF-READ-001",
    title="thread/read with includeTurns returns the turns with their items; without, none",
    protects="spec 5.1 verification step 3: thread/read(includeTurns=true)",
)
async def test_thread_read_with_turns_returns_them_with_their_items(
    codex_session: Session,
) -> None:
    await codex_session.open()
    thread_id = (await codex_session.start_thread())["id"]
    text = f"READ-{uuid.uuid4().hex}"
    codex_session.tap.queue_replies("READ-ANSWER")
    await codex_session.run_turn(thread_id, text)
    full = await codex_session.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    turns = full["thread"]["turns"]
    assert [t["status"] for t in turns] == ["completed"], turns
    items = turns[0]["items"]
    users = [i for i in items if i.get("type") == "userMessage"]
    agents = [i for i in items if i.get("type") == "agentMessage"]
    assert any(text in str(i.get("content")) for i in users), (
        f"no userMessage with our text: {items}"
    )
    assert [a.get("text") for a in agents] == ["READ-ANSWER"], f"agent messages: {agents}"
    bare = await codex_session.request(
        "thread/read", {"threadId": thread_id, "includeTurns": False}
    )
    assert bare["thread"]["id"] == thread_id
    assert bare["thread"]["turns"] == [], bare["thread"]["turns"]


@check(
    "CONF-READ-002",
    title="thread/read with includeTurns before the first turn is refused, not answered empty",
    protects="spec 5.1 verification: a read before the first user message has no history to show",
)
async def test_thread_read_with_turns_before_the_first_turn_is_refused(
    codex_session: Session,
) -> None:
    await codex_session.open()
    thread_id = (await codex_session.start_thread())["id"]
    await expect_refusal(
        codex_session.request("thread/read", {"threadId": thread_id, "includeTurns": True}),
        TURNS_BEFORE_FIRST_TURN,
        thread_id=thread_id,
    )
