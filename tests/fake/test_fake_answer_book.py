"""The fake, as a real process on a profile with an answer book, answers every method its
handlers do not know as the release did: per thread state, per variant, with the
release's notifications and its own values in place of the placeholders."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_probe.harness.jsonrpc.errors import ServerError
from tests.fake.book_fixtures import ARCHIVE_CELLS, cell, profile_with_book
from tests.fake.conftest import FakeProcesses

UNKNOWN = "00000000-0000-4000-8000-00000000e4a1"

CELLS = [
    *ARCHIVE_CELLS,
    cell("thread/goal/get", "idle", "minimal", {"threadId": "{{thread}}"}, result={"goal": None}),
    cell(
        "thread/goal/get",
        "archived",
        "minimal",
        {"threadId": "{{thread}}"},
        error={"code": -32600, "message": "thread not found: {{thread}}"},
    ),
    cell(
        "thread/goal/get",
        "none",
        "without threadId",
        {},
        kind="invalid",
        error={"code": -32600, "message": "Invalid request: missing field `threadId`"},
    ),
    cell(
        "fs/readFile",
        "none",
        "minimal",
        {"path": "{{work}}/files/readme.txt"},
        result={"dataBase64": "ZXhwbG9yZQ==", "path": "{{work}}/files/readme.txt"},
    ),
    cell(
        "turn/start",
        "none",
        "input of the wrong type",
        {"threadId": "{{thread}}", "input": 42},
        kind="invalid",
        error={
            "code": -32600,
            "message": "Invalid request: invalid type: integer `42`, expected a sequence",
        },
    ),
]


@pytest.fixture
def profile(tmp_path: Path) -> str:
    return str(profile_with_book("0.171.0", tmp_path / "profile", CELLS))


async def test_a_method_without_a_handler_is_answered_from_the_book_with_its_notifications(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    thread_id = await fake.new_thread(client)
    await fake.turn(client, thread_id, "hello")
    assert await client.request("thread/archive", {"threadId": thread_id}) == {}
    archived = await client.wait_for_notification("thread/archived", timeout=5)
    assert archived.params == {"threadId": thread_id}


async def test_a_call_about_an_id_nobody_has_gets_the_refusal_of_the_state_none(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    with pytest.raises(ServerError) as refused:
        await client.request("thread/archive", {"threadId": UNKNOWN})
    assert (refused.value.code, refused.value.message) == (
        -32600,
        f"no rollout found for thread id {UNKNOWN}",
    )


async def test_an_archived_thread_is_answered_as_the_release_answers_in_that_state(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    thread_id = await fake.new_thread(client)
    await fake.turn(client, thread_id, "hello")
    assert await client.request("thread/goal/get", {"threadId": thread_id}) == {"goal": None}
    await client.request("thread/archive", {"threadId": thread_id})
    with pytest.raises(ServerError, match=f"thread not found: {thread_id}"):
        await client.request("thread/goal/get", {"threadId": thread_id})


async def test_params_the_release_refused_as_they_are_are_refused_in_its_words(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    with pytest.raises(ServerError, match="missing field `threadId`"):
        await client.request("thread/goal/get", {})
    thread_id = await fake.new_thread(client)
    # turn/start has a handler: the book wins only where the release refused the params.
    with pytest.raises(ServerError, match=r"invalid type: integer `42`, expected a sequence"):
        await client.request("turn/start", {"threadId": thread_id, "input": 42})


async def test_the_placeholders_of_an_answer_get_the_paths_the_request_named(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    path = "/somewhere/else/files/readme.txt"
    answer = await client.request("fs/readFile", {"path": path})
    assert answer == {"dataBase64": "ZXhwbG9yZQ==", "path": path}


async def test_a_method_the_book_has_no_cell_for_is_still_an_unknown_variant(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    with pytest.raises(ServerError, match="unknown variant `app/list`"):
        await client.request("app/list", {})


def features(count: int) -> list[dict[str, object]]:
    return [{"name": f"feature-{n}", "stage": "beta"} for n in range(count)]


PAGED_CELLS = [
    cell(
        "experimentalFeature/list",
        "none",
        "minimal",
        {},
        result={"data": features(7), "nextCursor": None},
    ),
    # The evidence that the release pages by limit: model/list's full call.
    cell("model/list", "none", "minimal", {}, result={"data": features(4), "nextCursor": None}),
    cell(
        "model/list",
        "none",
        "full",
        {"cursor": None, "limit": 2},
        result={"data": features(2), "nextCursor": "2"},
    ),
    cell(
        "review/start",
        "none",
        "minimal",
        {"threadId": "{{thread}}"},
        error={"code": -32600, "message": "thread not found: {{thread}}"},
        notifications=[{"method": "deprecationNotice", "params": {"summary": "x"}}],
    ),
]


async def test_a_list_asked_with_a_limit_is_answered_a_page_at_a_time_as_the_release_pages(
    fake: FakeProcesses, tmp_path: Path
) -> None:
    client = await fake.start(str(profile_with_book("0.171.0", tmp_path / "paged", PAGED_CELLS)))
    page = await client.request("experimentalFeature/list", {"limit": 3})
    assert [f["name"] for f in page["data"]] == ["feature-0", "feature-1", "feature-2"]
    assert isinstance(page["nextCursor"], str)
    whole = await client.request("experimentalFeature/list", {"limit": 10})
    assert len(whole["data"]) == 7 and whole["nextCursor"] is None


async def test_a_refusal_comes_with_the_notifications_the_release_sent_with_it(
    fake: FakeProcesses, tmp_path: Path
) -> None:
    client = await fake.start(str(profile_with_book("0.171.0", tmp_path / "paged", PAGED_CELLS)))
    with pytest.raises(ServerError, match="thread not found"):
        await client.request("review/start", {"threadId": UNKNOWN})
    notice = await client.wait_for_notification("deprecationNotice", timeout=5)
    assert notice.params == {"summary": "x"}


WARNING = {
    "method": "warning",
    "params": {"message": "no model metadata", "threadId": "{{thread}}"},
}
TURN = {"threadId": "{{thread}}", "input": [{"type": "text", "text": "explore"}]}
TURN_CELLS = [
    cell(
        "turn/start",
        state,
        "minimal",
        TURN,
        result={"turn": {"id": "{{turn}}"}},
        notifications=sent,
    )
    for state, sent in (("idle", [WARNING]), ("compacted", []))
]


async def test_a_warning_the_release_sends_with_a_call_is_withheld_where_the_book_lacks_it(
    fake: FakeProcesses, tmp_path: Path
) -> None:
    # Measured on 0.168.0: a turn/start warns of the model's metadata on an idle thread,
    # and not while a turn is in flight; compacted stands in for such a state here (the
    # fake reaches it without holding a turn).
    client = await fake.start(str(profile_with_book("0.171.0", tmp_path / "p", TURN_CELLS)))
    thread_id = await fake.new_thread(client)
    await fake.turn(client, thread_id, "one")
    assert len(client.drain_notifications("warning")) == 1
    fake.tap.queue_replies("SUMMARY-TEXT")
    await client.request("thread/compact/start", {"threadId": thread_id})
    await client.wait_for_notification("turn/completed", timeout=10)
    client.drain_notifications()
    await fake.turn(client, thread_id, "two")
    assert client.drain_notifications("warning") == []


NO_ROLLOUT = "no rollout found for thread id {{thread}}"
NEW_CELLS = [
    cell(
        "thread/fork",
        "new",
        "minimal",
        {"threadId": "{{thread}}"},
        error={"code": -32600, "message": NO_ROLLOUT},
    ),
    cell(
        "thread/turns/list",
        "new",
        "minimal",
        {"threadId": "{{thread}}"},
        error={"code": -32600, "message": "list_turns is not supported yet"},
    ),
    cell(
        "thread/turns/list",
        "idle",
        "minimal",
        {"threadId": "{{thread}}"},
        result={"data": [], "nextCursor": None},
    ),
]


async def test_a_thread_without_a_turn_is_refused_what_the_release_refuses_before_its_first(
    fake: FakeProcesses, tmp_path: Path
) -> None:
    # Measured on 0.167.2: codex writes a thread's rollout with its first turn; until
    # then a fork finds none, and its turns cannot be listed.
    client = await fake.start(str(profile_with_book("0.171.0", tmp_path / "p", NEW_CELLS)))
    thread_id = await fake.new_thread(client)
    with pytest.raises(ServerError) as refused:
        await client.request("thread/fork", {"threadId": thread_id})
    assert refused.value.message == f"no rollout found for thread id {thread_id}"
    with pytest.raises(ServerError) as refused:
        await client.request("thread/turns/list", {"threadId": thread_id})
    assert refused.value.message == "list_turns is not supported yet"
    await fake.turn(client, thread_id, "one")
    forked = await client.request("thread/fork", {"threadId": thread_id})
    assert forked["thread"]["id"] != thread_id
    assert await client.request("thread/turns/list", {"threadId": thread_id}) == {
        "data": [],
        "nextCursor": None,
    }


FLEX = "Configured service tier `flex` is not advertised as supported"
TIER_CELLS = [
    cell("thread/start", "none", "minimal", None, result={}),
    cell(
        "thread/start",
        "none",
        "with serviceTier",
        {"serviceTier": "flex"},
        # The thread the exploration's call made, named as it was: no placeholder stands
        # for it in the book.
        result={"thread": {"id": UNKNOWN}},
        notifications=[{"method": "warning", "params": {"message": FLEX, "threadId": UNKNOWN}}],
    ),
]


async def test_a_warning_the_release_sends_for_a_value_comes_with_a_request_of_that_value(
    fake: FakeProcesses, tmp_path: Path
) -> None:
    # Measured on 0.144.5: thread/start warns of a service tier it does not advertise.
    # The fake sends it before the answer, as a thread/start's own notifications.
    client = await fake.start(str(profile_with_book("0.171.0", tmp_path / "p", TIER_CELLS)))
    await fake.new_thread(client)
    assert client.drain_notifications("warning") == []
    flex = await fake.new_thread(client, serviceTier="flex")
    warned = [n.params for n in client.drain_notifications("warning")]
    assert warned == [{"message": FLEX, "threadId": flex}]  # the thread the call made
    await fake.new_thread(client, serviceTier="fast")
    assert client.drain_notifications("warning") == []
