"""Where 0.120.0 and 0.171.0 were measured to differ, the fake differs the same way."""

from __future__ import annotations

import asyncio

from probes.wiretap import Reply
from tests.fake.conftest import FakeSession, text_input, texts


async def steer_into_a_slow_turn(fake: FakeSession, profile: str) -> list[str]:
    client = await fake.start(profile)
    thread_id = (await client.request("thread/start", {"cwd": str(fake.home.workdir)}))["thread"][
        "id"
    ]
    fake.tap.queue_replies(Reply(text="SLOW-REPLY", delay_s=1.0), Reply(text="AFTER-STEER"))
    turn = (
        await client.request(
            "turn/start", {"threadId": thread_id, "input": [text_input("TURN-TEXT")]}
        )
    )["turn"]
    await fake.tap.wait_for_requests(1, timeout=5)
    await client.request(
        "turn/steer",
        {"threadId": thread_id, "expectedTurnId": turn["id"], "input": [text_input("STEER")]},
    )
    completed = await client.wait_for_notification("turn/completed", timeout=15)
    agent_texts = [i["text"] for i in completed.params["turn"]["items"] if "text" in i]
    last = [t for _, parts in texts(fake.last_input()) for t in parts]
    return [*last[-3:], "|", *agent_texts]


async def test_0_171_drops_the_pending_answer_when_input_is_steered_in(fake: FakeSession) -> None:
    seen = await steer_into_a_slow_turn(fake, "0.171.0")
    assert seen[-4:] == ["TURN-TEXT", "STEER", "|", "AFTER-STEER"]


async def test_0_120_keeps_the_pending_answer_and_follows_up_with_the_steer(
    fake: FakeSession,
) -> None:
    seen = await steer_into_a_slow_turn(fake, "0.120.0")
    assert seen == ["TURN-TEXT", "SLOW-REPLY", "STEER", "|", "SLOW-REPLY", "AFTER-STEER"]


async def test_0_120_closes_an_unsubscribed_thread_at_once(fake: FakeSession) -> None:
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
    fake: FakeSession,
) -> None:
    client = await fake.start("0.171.0")
    thread_id = (await client.request("thread/start", {"cwd": str(fake.home.workdir)}))["thread"][
        "id"
    ]
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


async def test_only_0_120_announces_a_finished_compaction_with_thread_compacted(
    fake: FakeSession,
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
    fake: FakeSession,
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
