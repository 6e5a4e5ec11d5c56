"""The fake, driven with the harness client, imitating each profile's measured behaviour."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codex_probe.fake_appserver.profile import available_versions, load_profile
from codex_probe.harness.jsonrpc.errors import ServerError
from tests.fake.conftest import FakeProcesses, copy_profile, edit, texts

PROFILES = available_versions()


def test_version_prints_the_imitated_codex_cli_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "codex_probe.fake_appserver", "--profile", "0.120.0", "--version"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert done.stdout == "codex-cli 0.120.0\n"


def test_an_unknown_profile_is_a_clear_error_listing_the_profiles() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "codex_probe.fake_appserver", "--profile", "9.9.9", "--version"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert "no profile for codex-cli 9.9.9; profiles: 0.120.0, 0.171.0" in done.stderr


async def test_instructions_reach_the_provider_where_the_0_171_profile_puts_them(
    fake: FakeProcesses,
) -> None:
    client = await fake.start("0.171.0")
    thread_id = await fake.new_thread(client, baseInstructions="BASE", developerInstructions="DEV")
    turn = await fake.turn(client, thread_id, "hello")
    assert turn["status"] == "completed"
    body = fake.tap.model_requests()[0].body
    assert "instructions" not in body
    layout = texts(body["input"])
    assert layout[0] == ("developer", ["BASE"])
    assert layout[1][0] == "developer" and layout[1][1][0] == "DEV"
    assert layout[-1] == ("user", ["hello"])


async def test_instructions_reach_the_provider_where_the_0_120_profile_puts_them(
    fake: FakeProcesses,
) -> None:
    client = await fake.start("0.120.0")
    thread_id = await fake.new_thread(client, baseInstructions="BASE", developerInstructions="DEV")
    await fake.turn(client, thread_id, "hello")
    body = fake.tap.model_requests()[0].body
    assert body["instructions"] == "BASE"
    developer = texts(body["input"])[0]
    assert developer[0] == "developer" and developer[1][1] == "DEV"


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_turn_notifies_in_upstream_order(fake: FakeProcesses, profile: str) -> None:
    client = await fake.start(profile)
    thread_id = await fake.new_thread(client)
    await fake.turn(client, thread_id, "hi")
    methods = [m["method"] for m in fake.transcript.messages("recv") if "method" in m]
    surface = load_profile(profile).document.surface
    assert surface is not None
    # The release's notifications outside the lifecycle come too, with what triggers them.
    incidental = {n.method for n in surface.incidental_notifications}
    triggered = {
        n.method
        for n in surface.incidental_notifications
        if n.trigger in ("startup", "thread/start", "turn/start")
    }
    assert triggered <= set(methods)
    methods = [m for m in methods if m not in incidental]
    assert methods == [
        "thread/started",
        "thread/status/changed",
        "turn/started",
        "item/started",
        "item/completed",
        "item/started",
        "item/completed",
        "thread/tokenUsage/updated",
        "thread/status/changed",
        "turn/completed",
    ]


async def test_a_read_shows_a_turns_items_in_full_and_turn_completed_only_the_answer(
    fake: FakeProcesses,
) -> None:
    """0.171.0 names the view of a turn's items; measured: full in thread/read and
    thread/resume, a summary (the agent messages) in turn/completed."""
    client = await fake.start("0.171.0")
    thread_id = await fake.new_thread(client)
    completed = await fake.turn(client, thread_id, "hi")
    assert completed["itemsView"] == "summary"
    assert [i["type"] for i in completed["items"]] == ["agentMessage"]
    read = {"threadId": thread_id, "includeTurns": True}
    for method, params in (("thread/read", read), ("thread/resume", {"threadId": thread_id})):
        [turn] = (await client.request(method, params))["thread"]["turns"]
        assert turn["itemsView"] == "full", method
        assert [i["type"] for i in turn["items"]] == ["userMessage", "agentMessage"], method


@pytest.mark.parametrize("profile", PROFILES)
async def test_threads_persist_so_a_restarted_fake_resumes_them(
    fake: FakeProcesses,
    profile: str,
) -> None:
    first = await fake.start(profile)
    thread_id = (
        await first.request(
            "thread/start",
            {
                "cwd": str(fake.home.workdir),
                "baseInstructions": "BASE-1",
            },
        )
    )["thread"]["id"]
    await fake.turn(first, thread_id, "one")
    await first.close()
    second = await fake.start(profile)
    with pytest.raises(ServerError) as not_loaded:
        await second.request("turn/start", {"threadId": thread_id, "input": []})
    assert not_loaded.value.message == f"thread not found: {thread_id}"
    resumed = await second.request(
        "thread/resume", {"threadId": thread_id, "baseInstructions": "BASE-2"}
    )
    assert [t["status"] for t in resumed["thread"]["turns"]] == ["completed"]
    await fake.turn(second, thread_id, "two")
    sent = str(fake.tap.model_requests()[-1].body)
    # Measured on both versions: a resume in a new process applies the new base.
    assert "BASE-2" in sent and "BASE-1" not in sent


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_resume_of_a_loaded_thread_keeps_the_old_instructions(
    fake: FakeProcesses,
    profile: str,
) -> None:
    client = await fake.start(profile)
    thread_id = (
        await client.request(
            "thread/start",
            {
                "cwd": str(fake.home.workdir),
                "baseInstructions": "OLD-BASE",
                "developerInstructions": "OLD-DEV",
            },
        )
    )["thread"]["id"]
    await fake.turn(client, thread_id, "one")
    await client.request(
        "thread/resume",
        {"threadId": thread_id, "baseInstructions": "NEW-BASE", "developerInstructions": "NEW-DEV"},
    )
    await fake.turn(client, thread_id, "two")
    sent = str(fake.tap.model_requests()[-1].body)
    assert "OLD-BASE" in sent and "OLD-DEV" in sent
    assert "NEW-BASE" not in sent and "NEW-DEV" not in sent


@pytest.mark.parametrize("profile", PROFILES)
async def test_compaction_asks_the_model_and_keeps_user_messages_and_the_summary(
    fake: FakeProcesses,
    profile: str,
) -> None:
    client = await fake.start(profile)
    thread_id = (
        await client.request(
            "thread/start",
            {
                "cwd": str(fake.home.workdir),
                "baseInstructions": "BASE",
                "developerInstructions": "DEV",
            },
        )
    )["thread"]["id"]
    await fake.turn(client, thread_id, "one")
    fake.tap.queue_replies("SUMMARY-TEXT")
    assert await client.request("thread/compact/start", {"threadId": thread_id}) == {}
    completed = await client.wait_for_notification("turn/completed", timeout=10)
    assert completed.params["turn"]["status"] == "completed"
    compaction = fake.tap.model_requests()[-1].body
    assert compaction["tools"] == []
    assert "CONTEXT CHECKPOINT COMPACTION" in compaction["input"][-1]["content"][0]["text"]
    await fake.turn(client, thread_id, "two")
    after = texts(fake.last_input())
    roles_texts = [t for _, parts in after for t in parts]
    assert "one" in roles_texts and roles_texts[-1] == "two"
    assert any(t.endswith("SUMMARY-TEXT") for t in roles_texts)
    assert "DEV" in roles_texts  # re-injected with the initial context


@pytest.mark.parametrize("profile", PROFILES)
async def test_errors_use_the_codes_and_messages_measured_upstream(
    fake: FakeProcesses,
    profile: str,
) -> None:
    client = await fake.start(profile, initialize=False)
    with pytest.raises(ServerError) as early:
        await client.request("thread/start", {})
    assert (early.value.code, early.value.message) == (-32600, "Not initialized")
    await client.request("initialize", {"clientInfo": {"name": "t", "version": "1"}})
    with pytest.raises(ServerError) as again:
        await client.request("initialize", {"clientInfo": {"name": "t", "version": "1"}})
    assert again.value.message == "Already initialized"
    with pytest.raises(ServerError) as unknown:
        await client.request("no/such/method", {})
    assert unknown.value.message.startswith("Invalid request: unknown variant `no/such/method`")
    missing = "10192eed-8b3c-40de-bf2b-7a58e72ab0d1"
    with pytest.raises(ServerError) as no_rollout:
        await client.request("thread/resume", {"threadId": missing})
    assert no_rollout.value.message == f"no rollout found for thread id {missing}"
    with pytest.raises(ServerError) as malformed:
        await client.request("thread/resume", {"threadId": "not-a-uuid"})
    assert malformed.value.message.endswith("found `n` at 1")
    thread_id = await fake.new_thread(client)
    with pytest.raises(ServerError) as no_turn:
        await client.request(
            "turn/steer", {"threadId": thread_id, "input": [], "expectedTurnId": "x"}
        )
    assert no_turn.value.message == "no active turn to steer"


@pytest.mark.parametrize("profile", PROFILES)
async def test_an_experimental_field_is_refused_unless_initialize_declared_experimental_api(
    fake: FakeProcesses,
    profile: str,
) -> None:
    plain = await fake.start(profile)
    with pytest.raises(ServerError) as refused:
        await fake.new_thread(plain, experimentalRawEvents=True)
    assert (refused.value.code, refused.value.message) == (
        -32600,
        "thread/start.experimentalRawEvents requires experimentalApi capability",
    )
    declared = await fake.start(profile, initialize=False)
    await declared.request(
        "initialize",
        {"clientInfo": {"name": "t", "version": "1"}, "capabilities": {"experimentalApi": True}},
    )
    assert await fake.new_thread(declared, experimentalRawEvents=True)


IMAGE_ONLY = [{"type": "image", "url": "http://127.0.0.1:9/picture.png"}]


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_turn_start_without_text_is_refused_as_invalid(
    fake: FakeProcesses,
    profile: str,
) -> None:
    client = await fake.start(profile)
    thread_id = await fake.new_thread(client)
    with pytest.raises(ServerError) as refused:
        await client.request("turn/start", {"threadId": thread_id, "input": IMAGE_ONLY})
    assert (refused.value.code, refused.value.message) == (
        -32600,
        "Invalid request: turn/start needs text input",
    )
    assert fake.tap.model_requests() == []


async def test_the_refusal_of_a_turn_start_without_text_is_the_profiles(
    fake: FakeProcesses,
    tmp_path: Path,
) -> None:
    path = copy_profile("0.171.0", tmp_path)
    refusal = {"code": -32099, "message": "only text, please"}
    edit(path, lambda d: d["errors"]["turn_without_text"].update(value=refusal))
    client = await fake.start(str(path))
    thread_id = await fake.new_thread(client)
    with pytest.raises(ServerError) as refused:
        await client.request("turn/start", {"threadId": thread_id, "input": IMAGE_ONLY})
    assert (refused.value.code, refused.value.message) == (-32099, "only text, please")


@pytest.mark.parametrize("profile", PROFILES)
async def test_steer_joins_the_active_turn_and_a_wrong_turn_id_is_refused(
    fake: FakeProcesses,
    profile: str,
) -> None:
    from codex_probe.rig.wiretap import Reply

    client = await fake.start(profile)
    thread_id = await fake.new_thread(client)
    fake.tap.queue_replies(Reply(text="slow", delay_s=1.0))
    turn = (
        await client.request(
            "turn/start",
            {
                "threadId": thread_id,
                "input": [{"type": "text", "text": "start", "text_elements": []}],
            },
        )
    )["turn"]
    with pytest.raises(ServerError) as wrong:
        await client.request(
            "turn/steer",
            {
                "threadId": thread_id,
                "expectedTurnId": "other",
                "input": [{"type": "text", "text": "x", "text_elements": []}],
            },
        )
    assert wrong.value.message == f"expected active turn id `other` but found `{turn['id']}`"
    steered = await client.request(
        "turn/steer",
        {
            "threadId": thread_id,
            "expectedTurnId": turn["id"],
            "input": [{"type": "text", "text": "STEERED", "text_elements": []}],
        },
    )
    assert steered == {"turnId": turn["id"]}
    await client.wait_for_notification("turn/completed", timeout=15)
    assert "STEERED" in str(fake.tap.model_requests()[-1].body["input"])


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_streamed_answer_becomes_agent_message_deltas_under_the_provider_item_id(
    fake: FakeProcesses,
    profile: str,
) -> None:
    from codex_probe.rig.wiretap import Reply

    client = await fake.start(profile)
    thread_id = await fake.new_thread(client)
    fake.tap.queue_replies(Reply(text="one two three", deltas=3))
    await fake.turn(client, thread_id, "hi")
    deltas = [n.params for n in client.notifications if n.method == "item/agentMessage/delta"]
    assert "".join(d["delta"] for d in deltas) == "one two three"
    assert len(deltas) == 3
    (message,) = [
        n.params["item"]
        for n in client.notifications
        if n.method == "item/completed" and n.params["item"]["type"] == "agentMessage"
    ]
    assert {d["itemId"] for d in deltas} == {message["id"]}
    assert message["id"].startswith("msg_") and message["text"] == "one two three"


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_reasoning_effort_given_in_config_on_thread_start_shows_in_its_answer(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    workdir = str(fake.home.workdir)
    plain = await client.request("thread/start", {"cwd": workdir})
    given = await client.request(
        "thread/start", {"cwd": workdir, "config": {"model_reasoning_effort": "high"}}
    )
    assert plain.get("reasoningEffort") is None
    assert given["reasoningEffort"] == "high"
    assert given["thread"].get("reasoningEffort", "high") == "high"


async def test_thread_start_answers_the_approval_policy_it_was_given_not_the_templates(
    fake: FakeProcesses,
) -> None:
    client = await fake.start("0.171.0")
    started = await client.request("thread/start", {"approvalPolicy": "untrusted"})
    assert started["approvalPolicy"] == "untrusted"
    # Without one, the home's configuration's (the test home sets never).
    assert (await client.request("thread/start", {}))["approvalPolicy"] == "never"
