"""The fake on a learned book checks every request against the release's schema and
refuses what the release refuses in the release's words, learned from the exploration's
refusals (a template per kind), for fields and methods the exploration never sent wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_probe.fake_appserver.answer_book import book_path, write_book
from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.jsonrpc.errors import ServerError
from codex_probe.probes.releases.learn.book import learn_book
from tests.fake.book_fixtures import ARCHIVE_CELLS, cell, record
from tests.fake.conftest import FakeProcesses, copy_profile

INVALID = "Invalid request: "
# What the release said to the exploration's invalid calls (0.171.0's words).
REFUSALS = [
    cell(
        "thread/start",
        "none",
        "baseInstructions of the wrong type",
        {"baseInstructions": 42},
        kind="invalid",
        error={
            "code": -32600,
            "message": INVALID + "invalid type: integer `42`, expected a string",
        },
    ),
    cell(
        "thread/start",
        "none",
        "approvalPolicy of an unknown value",
        {"approvalPolicy": "explore-unknown-value"},
        kind="invalid",
        error={
            "code": -32600,
            "message": INVALID + "unknown variant `explore-unknown-value`, expected one of "
            "`untrusted`, `on-request`, `granular`, `never`",
        },
    ),
    cell(
        "account/login/cancel",
        "none",
        "without loginId",
        {},
        kind="invalid",
        error={"code": -32600, "message": INVALID + "missing field `loginId`"},
    ),
    ARCHIVE_CELLS[1],
    cell(
        "thread/archive",
        "none",
        "params not an object",
        ["explore"],
        kind="invalid",
        error={
            "code": -32600,
            "message": "invalid session id: invalid character: expected an optional prefix of "
            "`urn:uuid:` followed by [0-9a-fA-F-], found `x` at 2",
        },
    ),
    cell(
        "thread/list",
        "none",
        "sourceKinds of an unknown value",
        {"sourceKinds": ["explore-unknown-value"]},
        kind="invalid",
        error={
            "code": -32600,
            "message": INVALID + "unknown variant `explore-unknown-value`, expected one of "
            "`cli`, `vscode`, `exec`, `appServer`",
        },
    ),
    # (and its one valid call, so that a valid cwd filter has an answer)
    cell("thread/list", "none", "minimal", {}, result={"data": [], "nextCursor": None}),
    cell(
        "thread/list",
        "none",
        "cwd of the wrong type",
        {"cwd": 42},
        kind="invalid",
        error={
            "code": -32600,
            "message": INVALID + "data did not match any variant of untagged enum "
            "ThreadListCwdFilter",
        },
    ),
    cell(
        "initialize",
        "none",
        "without clientInfo",
        {},
        kind="invalid",
        error={"code": -32600, "message": INVALID + "missing field `clientInfo`"},
    ),
]


@pytest.fixture
def profile(tmp_path: Path, default_codex: Installation) -> str:
    path = copy_profile("0.171.0", tmp_path)
    book = learn_book(record("0.171.0", REFUSALS), ensure_schema(default_codex))
    write_book(book, book_path(path))
    return str(path)


async def refusal(client: object, method: str, params: object) -> str:
    with pytest.raises(ServerError) as refused:
        await client.request(method, params)  # type: ignore[attr-defined]
    assert refused.value.code == -32600
    return refused.value.message


async def test_a_wrong_type_is_refused_in_the_releases_words_with_the_value_sent(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    assert await refusal(client, "thread/start", {"baseInstructions": True}) == (
        INVALID + "invalid type: boolean `true`, expected a string"
    )
    assert await refusal(client, "thread/start", {"cwd": ".", "baseInstructions": 42}) == (
        INVALID + "invalid type: integer `42`, expected a string"
    )


async def test_a_value_no_alternative_of_an_untagged_field_takes_is_refused_in_its_own_words(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    untagged = INVALID + "data did not match any variant of untagged enum ThreadListCwdFilter"
    assert await refusal(client, "thread/list", {"cwd": True}) == untagged
    assert await refusal(client, "thread/list", {"cwd": {"path": "/w"}}) == untagged
    listed = await client.request("thread/list", {"cwd": ["/w"]})
    assert listed["data"] == []


async def test_an_unknown_approval_policy_is_refused_with_the_values_the_release_named(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    message = await refusal(client, "thread/start", {"approvalPolicy": "sometimes"})
    assert message == (
        INVALID + "unknown variant `sometimes`, expected one of "
        "`untrusted`, `on-request`, `granular`, `never`"
    )


async def test_an_unknown_value_inside_a_list_is_refused_with_the_values_the_release_named(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    message = await refusal(client, "thread/list", {"sourceKinds": ["cli", "telepathy"]})
    assert message == (
        INVALID
        + "unknown variant `telepathy`, expected one of `cli`, `vscode`, `exec`, `appServer`"
    )


async def test_a_missing_required_field_is_refused_on_a_method_never_sent_without_it(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    assert await refusal(client, "thread/goal/get", {}) == INVALID + "missing field `threadId`"
    assert (
        await refusal(client, "turn/start", {"input": []}) == INVALID + "missing field `threadId`"
    )


async def test_an_input_item_without_its_type_is_refused_as_a_missing_field_before_the_thread(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    nobodys = "00000000-0000-4000-8000-0000000000aa"
    untyped = {"threadId": nobodys, "input": [{"text": "hello"}]}
    assert await refusal(client, "turn/start", untyped) == INVALID + "missing field `type`"
    typed = {"threadId": nobodys, "input": [{"type": "text", "text": "hello"}]}
    assert "missing field" not in await refusal(client, "turn/start", typed)


async def test_an_initialize_without_client_info_is_refused_as_the_release_refuses_it(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile, initialize=False)
    assert await refusal(client, "initialize", {}) == INVALID + "missing field `clientInfo`"
    assert await client.request("initialize", {"clientInfo": {"name": "t", "version": "1"}})


async def test_the_fields_come_in_the_order_sent_and_the_missing_ones_last(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    params = {"approvalPolicy": "sometimes", "baseInstructions": 42}
    assert "unknown variant `sometimes`" in await refusal(client, "thread/start", params)
    assert "integer `42`" in await refusal(client, "turn/start", {"threadId": 42})


async def test_valid_params_still_reach_the_handlers(fake: FakeProcesses, profile: str) -> None:
    client = await fake.start(profile)
    thread_id = await fake.new_thread(client, approvalPolicy="never", baseInstructions="B")
    turn = await fake.turn(client, thread_id, "hello")
    assert turn["status"] == "completed"


async def test_a_thread_id_that_is_no_uuid_is_refused_in_the_words_of_the_methods_handler(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    assert await refusal(client, "thread/archive", {"threadId": "abc-zz"}) == (
        "invalid session id: invalid character: expected an optional prefix of "
        "`urn:uuid:` followed by [0-9a-fA-F-], found `z` at 5"
    )
    # Not `none`'s refusal of an id nobody has, which the book holds too.
