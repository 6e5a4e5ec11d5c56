"""The fake's own thread handlers answer as the release does where its book shows how: a
fork of a thread with a turn in flight, a compacted thread's turns, a value the release
gates behind the experimental API whatever the thread's state."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_probe.harness.jsonrpc.errors import ServerError
from tests.fake.book_fixtures import cell, profile_with_book
from tests.fake.conftest import FakeProcesses
from tests.fake.test_fake_version_differences import hold_a_turn

T = "{{thread}}"
EXPECTED_ACTIVE = "expected active turn id {{unknown}} but found {{turn}}"
NOBODYS_TURN = "00000000-0000-4000-8000-0000000000aa"
GATED = "askForApproval.granular requires experimentalApi capability"


def turn(status: str, *items: str) -> dict[str, object]:
    return {"id": "t", "status": status, "items": [{"type": kind} for kind in items]}


CELLS = [
    cell(
        "thread/fork",
        "in-flight",
        "minimal",
        {"threadId": T},
        result={
            "thread": {
                "turns": [
                    turn("completed", "userMessage", "agentMessage"),
                    turn("interrupted", "userMessage"),
                ]
            }
        },
    ),
    cell(
        "turn/interrupt",
        "in-flight",
        "turnId of an id nobody has",
        {"threadId": T, "turnId": "{{unknown}}"},
        error={"code": -32600, "message": EXPECTED_ACTIVE},
    ),
    cell(
        "thread/items/list",
        "idle",
        "minimal",
        {"threadId": T},
        result={"data": [{"turnId": "{{turn}}", "item": {"type": "userMessage"}}]},
    ),
    cell(
        "thread/items/list",
        "idle",
        "full",
        {"threadId": T, "turnId": "{{turn}}", "limit": 5},
        result={"data": [{"turnId": "{{turn}}", "item": {"type": "userMessage"}}]},
    ),
    cell(
        "thread/items/list",
        "idle",
        "turnId of an id nobody has",
        {"threadId": T, "turnId": "{{unknown}}"},
        result={"data": [], "backwardsCursor": None},
    ),
    cell(
        "thread/metadata/update",
        "idle",
        "minimal",
        {"threadId": T},
        result={"thread": {"id": T, "forkedFromId": "{{unknown}}"}},
    ),
    cell(
        "thread/resume",
        "idle",
        "approvalPolicy=granular",
        {"threadId": T, "approvalPolicy": {"granular": {"rules": False}}},
        error={"code": -32600, "message": GATED},
    ),
]


@pytest.fixture
def profile(tmp_path: Path) -> str:
    return str(profile_with_book("0.171.0", tmp_path / "profile", CELLS))


async def test_a_fork_of_a_thread_with_a_turn_in_flight_lists_that_turn_interrupted(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    parent = await fake.new_thread(client)
    await fake.turn(client, parent, "first")
    held = await hold_a_turn(fake, client, parent)
    forked = (await client.request("thread/fork", {"threadId": parent}))["thread"]
    last = forked["turns"][-1]
    assert [t["status"] for t in forked["turns"]] == ["completed", "interrupted"]
    assert last["id"] == held and last["completedAt"] is None and last["durationMs"] is None
    assert [item["type"] for item in last["items"]] == ["userMessage"]
    await client.request("turn/interrupt", {"threadId": parent, "turnId": held})


async def test_a_fork_in_flight_lists_only_the_ended_turns_where_no_book_says_otherwise(
    fake: FakeProcesses,
) -> None:
    client = await fake.start("0.171.0")
    parent = await fake.new_thread(client)
    await fake.turn(client, parent, "first")
    held = await hold_a_turn(fake, client, parent)
    forked = (await client.request("thread/fork", {"threadId": parent}))["thread"]
    assert [t["status"] for t in forked["turns"]] == ["completed"]
    await client.request("turn/interrupt", {"threadId": parent, "turnId": held})


async def test_a_compaction_s_turn_lists_its_context_compaction_item(
    fake: FakeProcesses,
) -> None:
    client = await fake.start("0.171.0")
    thread_id = await fake.new_thread(client)
    await fake.turn(client, thread_id, "one")
    await client.request("thread/compact/start", {"threadId": thread_id})
    await client.wait_for_notification("turn/completed", timeout=10)
    read = await client.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    kinds = [[item["type"] for item in t["items"]] for t in read["thread"]["turns"]]
    assert kinds[-1] == ["contextCompaction"]


async def test_a_value_gated_behind_the_experimental_api_is_refused_before_the_thread_is_sought(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    nobody = "00000000-0000-4000-8000-00000000e4a1"
    granular = {"granular": {"rules": True, "sandbox_approval": False}}
    with pytest.raises(ServerError, match=GATED):
        await client.request("thread/resume", {"threadId": nobody, "approvalPolicy": granular})
    with pytest.raises(ServerError, match="no rollout found"):
        await client.request("thread/resume", {"threadId": nobody, "approvalPolicy": "never"})


async def test_an_interrupt_naming_a_turn_the_thread_does_not_have_gets_the_releases_refusal(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    thread = await fake.new_thread(client)
    held = await hold_a_turn(fake, client, thread)
    with pytest.raises(ServerError) as refused:
        await client.request("turn/interrupt", {"threadId": thread, "turnId": NOBODYS_TURN})
    assert refused.value.message == f"expected active turn id {NOBODYS_TURN} but found {held}"
    await client.request("turn/interrupt", {"threadId": thread, "turnId": held})


async def test_the_items_of_a_turn_the_thread_does_not_have_are_an_empty_page(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    thread = await fake.new_thread(client)
    own = (await fake.turn(client, thread, "first"))["id"]
    listed = await client.request(
        "thread/items/list", {"threadId": thread, "turnId": own, "cursor": None}
    )
    assert [entry["turnId"] for entry in listed["data"]] == [own]
    empty = await client.request(
        "thread/items/list", {"threadId": thread, "turnId": NOBODYS_TURN, "cursor": None}
    )
    assert empty == {"data": [], "backwardsCursor": None}


async def test_a_fork_at_a_turn_lists_the_turns_up_to_that_one(fake: FakeProcesses) -> None:
    client = await fake.start("0.171.0")
    parent = await fake.new_thread(client)
    first = (await fake.turn(client, parent, "first"))["id"]
    second = (await fake.turn(client, parent, "second"))["id"]
    at_first = await client.request("thread/fork", {"threadId": parent, "lastTurnId": first})
    assert [turn["id"] for turn in at_first["thread"]["turns"]] == [first]
    whole = await client.request("thread/fork", {"threadId": parent})
    assert [turn["id"] for turn in whole["thread"]["turns"]] == [first, second]


async def test_a_fork_read_from_disk_has_nothing_unread_until_a_turn_of_its_own(
    fake: FakeProcesses,
) -> None:
    first = await fake.start("0.171.0")
    parent = await fake.new_thread(first)
    await fake.turn(first, parent, "first")
    fork = (await first.request("thread/fork", {"threadId": parent}))["thread"]["id"]
    second = await fake.start("0.171.0")  # another process: neither thread is loaded there
    read = await second.request("thread/read", {"threadId": fork})
    assert read["readState"] == {"firstUnread": None, "revision": f"initial:{fork}"}
    original = await second.request("thread/read", {"threadId": parent})
    assert original["readState"]["firstUnread"] is not None


async def test_a_threads_parent_in_a_book_answer_is_the_fakes_own_not_the_copy_the_book_saw(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    original = await fake.new_thread(client)
    await fake.turn(client, original, "first")
    answer = await client.request("thread/metadata/update", {"threadId": original})
    assert answer["thread"]["forkedFromId"] is None
    fork = (await client.request("thread/fork", {"threadId": original}))["thread"]["id"]
    answer = await client.request("thread/metadata/update", {"threadId": fork})
    assert answer["thread"]["forkedFromId"] == original
