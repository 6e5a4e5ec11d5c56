"""Where 0.120.0 and 0.171.0 were measured to differ, the fake differs the same way."""

from __future__ import annotations

import asyncio
from pathlib import Path

from codex_probe.harness.driver.params import text_input
from codex_probe.harness.jsonrpc.client import JsonRpcClient
from codex_probe.rig.wiretap import Reply
from tests.fake.conftest import FakeProcesses, copy_profile, edit, texts


async def steer_into_a_slow_turn(fake: FakeProcesses, profile: str) -> list[str]:
    client = await fake.start(profile)
    thread_id = (await client.request("thread/start", {"cwd": str(fake.home.workdir)}))["thread"][
        "id"
    ]
    fake.tap.queue_replies(Reply(text="SLOW-REPLY", delay_s=1.0), Reply(text="AFTER-STEER"))
    turn = (
        await client.request(
            "turn/start", {"threadId": thread_id, "input": text_input("TURN-TEXT")}
        )
    )["turn"]
    await fake.tap.wait_for_requests(1, timeout=5)
    await client.request(
        "turn/steer",
        {"threadId": thread_id, "expectedTurnId": turn["id"], "input": text_input("STEER")},
    )
    await client.wait_for_notification("turn/completed", timeout=15)
    # Every answer of the turn, as its item/completed says (turn/completed lists the last
    # one on 0.171.0 and none on 0.120.0).
    agent_texts = [
        n.params["item"]["text"]
        for n in client.notifications
        if n.method == "item/completed" and n.params["item"]["type"] == "agentMessage"
    ]
    last = [t for _, parts in texts(fake.last_input()) for t in parts]
    return [*last[-3:], "|", *agent_texts]


async def test_0_171_drops_the_pending_answer_when_input_is_steered_in(fake: FakeProcesses) -> None:
    seen = await steer_into_a_slow_turn(fake, "0.171.0")
    assert seen[-4:] == ["TURN-TEXT", "STEER", "|", "AFTER-STEER"]


async def test_0_120_keeps_the_pending_answer_and_follows_up_with_the_steer(
    fake: FakeProcesses,
) -> None:
    seen = await steer_into_a_slow_turn(fake, "0.120.0")
    assert seen == ["TURN-TEXT", "SLOW-REPLY", "STEER", "|", "SLOW-REPLY", "AFTER-STEER"]


async def test_0_120_closes_an_unsubscribed_thread_at_once(fake: FakeProcesses) -> None:
    client = await fake.start("0.120.0")
    thread_id = (await client.request("thread/start", {"cwd": str(fake.home.workdir)}))["thread"][
        "id"
    ]
    assert await client.request("thread/unsubscribe", {"threadId": thread_id}) == {
        "status": "unsubscribed"
    }
    closed = await client.wait_for_notification("thread/closed", timeout=5)
    assert closed.params == {"threadId": thread_id}
    assert (await client.request("thread/loaded/list", {}))["data"] == []


async def test_0_171_keeps_an_unsubscribed_thread_listed_until_it_is_resumed(
    fake: FakeProcesses,
) -> None:
    client = await fake.start("0.171.0")
    thread_id = (await client.request("thread/start", {"cwd": str(fake.home.workdir)}))["thread"][
        "id"
    ]
    await fake.turn(client, thread_id, "one")  # a thread without a turn does not resume
    client.drain_notifications("thread/status/changed")
    await client.request("thread/unsubscribe", {"threadId": thread_id})
    await asyncio.sleep(0.2)
    assert (await client.request("thread/loaded/list", {}))["data"] == [thread_id]
    await client.request("thread/resume", {"threadId": thread_id})
    statuses = [
        (await client.wait_for_notification("thread/status/changed", timeout=5)).params["status"][
            "type"
        ]
        for _ in range(2)
    ]
    assert statuses[-2:] == ["notLoaded", "idle"]


async def test_a_second_unsubscribe_of_a_thread_that_stayed_loaded_answers_not_subscribed(
    fake: FakeProcesses,
) -> None:
    client = await fake.start("0.171.0")
    thread_id = (await client.request("thread/start", {"cwd": str(fake.home.workdir)}))["thread"][
        "id"
    ]
    await fake.turn(client, thread_id, "one")
    unsubscribe = {"threadId": thread_id}
    assert await client.request("thread/unsubscribe", unsubscribe) == {"status": "unsubscribed"}
    assert await client.request("thread/unsubscribe", unsubscribe) == {"status": "notSubscribed"}
    await client.request("thread/resume", {"threadId": thread_id})
    assert await client.request("thread/unsubscribe", unsubscribe) == {"status": "unsubscribed"}


async def test_only_0_120_announces_a_finished_compaction_with_thread_compacted(
    fake: FakeProcesses,
) -> None:
    for profile in ("0.120.0", "0.171.0"):
        client = await fake.start(profile)
        thread_id = (await client.request("thread/start", {"cwd": str(fake.home.workdir)}))[
            "thread"
        ]["id"]
        await fake.turn(client, thread_id, "one")
        await client.request("thread/compact/start", {"threadId": thread_id})
        await client.wait_for_notification("turn/completed", timeout=10)
        compacted = [n for n in client.notifications if n.method == "thread/compacted"]
        assert bool(compacted) == (profile == "0.120.0"), profile
        await client.close()


async def test_a_provider_named_openai_gets_the_remote_compaction_each_version_sends(
    fake: FakeProcesses,
) -> None:
    fake.home.update_config({"model_providers": {"mock": {"name": "OpenAI"}}})
    for profile, path, last_item in (
        ("0.171.0", "/v1/responses", "compaction_trigger"),
        ("0.120.0", "/v1/responses/compact", "message"),
    ):
        client = await fake.start(profile)
        thread_id = (
            await client.request(
                "thread/start", {"cwd": str(fake.home.workdir), "baseInstructions": "B"}
            )
        )["thread"]["id"]
        await fake.turn(client, thread_id, "one")
        await client.request("thread/compact/start", {"threadId": thread_id})
        await client.wait_for_notification("turn/completed", timeout=10)
        compaction = fake.tap.requests[-1]
        assert compaction.path == path, profile
        assert compaction.body["input"][-1]["type"] == last_item
        await fake.turn(client, thread_id, "two")
        kinds = [item.get("type") for item in fake.last_input()]
        assert "compaction" in kinds, profile
        await client.close()


async def start_a_turn_while_one_is_active(
    fake: FakeProcesses, profile: str
) -> tuple[str, str, list[str]]:
    """The active turn's id, the id a second turn/start was answered with, the turns started."""
    client = await fake.start(profile)
    thread_id = await fake.new_thread(client)
    fake.tap.queue_replies(Reply(text="SLOW-REPLY", delay_s=1.0))
    active = (
        await client.request("turn/start", {"threadId": thread_id, "input": text_input("FIRST")})
    )["turn"]["id"]
    await fake.tap.wait_for_requests(1, timeout=5)
    answered = (
        await client.request("turn/start", {"threadId": thread_id, "input": text_input("SECOND")})
    )["turn"]
    assert answered["status"] == "inProgress", answered
    await client.wait_for_notification("turn/completed", timeout=15)
    started = [n.params["turn"]["id"] for n in client.notifications if n.method == "turn/started"]
    assert "SECOND" in [t for _, parts in texts(fake.last_input()) for t in parts]
    return active, answered["id"], started


async def test_0_171_answers_a_turn_start_during_a_turn_with_the_active_turn(
    fake: FakeProcesses,
) -> None:
    active, answered, started = await start_a_turn_while_one_is_active(fake, "0.171.0")
    assert answered == active
    assert started == [active]


async def test_0_120_answers_a_turn_start_during_a_turn_with_a_turn_that_never_starts(
    fake: FakeProcesses,
) -> None:
    active, answered, started = await start_a_turn_while_one_is_active(fake, "0.120.0")
    assert answered != active
    assert started == [active]


async def hold_a_turn(fake: FakeProcesses, client: JsonRpcClient, thread_id: str) -> str:
    """A turn whose model answer is held back until it is interrupted; its id."""
    fake.tap.queue_replies(Reply(text="HELD", delay_s=60.0))
    before = len(fake.tap.requests)
    turn = await client.request("turn/start", {"threadId": thread_id, "input": text_input("HOLD")})
    await fake.tap.wait_for_requests(before + 1, timeout=5)
    turn_id: str = turn["turn"]["id"]
    return turn_id


async def test_0_120_answers_an_idle_interrupt_once_a_later_turn_of_its_thread_is_interrupted(
    fake: FakeProcesses,
) -> None:
    client = await fake.start("0.120.0")
    thread_id, other = await fake.new_thread(client), await fake.new_thread(client)
    done = await fake.turn(client, thread_id, "one")
    idle = asyncio.ensure_future(
        client.request("turn/interrupt", {"threadId": thread_id, "turnId": done["id"]})
    )
    elsewhere = await hold_a_turn(fake, client, other)
    assert await client.request("turn/interrupt", {"threadId": other, "turnId": elsewhere}) == {}
    await asyncio.sleep(0.5)
    assert not idle.done(), "an interrupt on another thread answered it"
    held = await hold_a_turn(fake, client, thread_id)
    assert not idle.done(), "starting a turn answered it"
    assert await client.request("turn/interrupt", {"threadId": thread_id, "turnId": held}) == {}
    async with asyncio.timeout(5):
        assert await idle == {}


async def test_a_completed_turn_is_listed_in_the_items_view_of_the_release(
    fake: FakeProcesses, tmp_path: Path
) -> None:
    # Measured on 0.144.5: turn/completed of a completed turn says `notLoaded` and lists
    # nothing; 0.150.0 and after say `summary`. The fake takes the view of its template.
    profile = copy_profile("0.171.0", tmp_path)
    summary = await completed_view(fake, str(profile))
    wire = tmp_path / "wire-0.171.0.json"
    edit(wire, lambda doc: doc["templates"]["turn_completed"]["turn"].update(itemsView="notLoaded"))
    assert (summary, await completed_view(fake, str(profile))) == ("summary", "notLoaded")


async def completed_view(fake: FakeProcesses, profile: str) -> str:
    client = await fake.start(profile)
    thread_id = await fake.new_thread(client)
    turn = await fake.turn(client, thread_id, "hello")
    view: str = turn["itemsView"]
    return view
