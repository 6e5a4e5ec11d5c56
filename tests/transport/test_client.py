from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness.jsonrpc.errors import (
    ConnectionClosed,
    MalformedFrame,
    NotificationTimeout,
    RequestTimeout,
    ServerError,
    ServerExited,
    TransportError,
)
from codex_probe.harness.jsonrpc.transcript import Transcript, read_transcript
from tests.transport.conftest import SpawnPeer


async def test_request_returns_the_result_of_a_peer_that_answers(spawn_peer: SpawnPeer) -> None:
    client = await spawn_peer()
    result = await client.request("echo", {"n": 1}, timeout=5)
    assert result == {"method": "echo", "params": {"n": 1}}


async def test_messages_with_and_without_the_jsonrpc_member_are_both_accepted(
    spawn_peer: SpawnPeer,
) -> None:
    client = await spawn_peer()
    assert await client.request("echo_jsonrpc", {"a": 1}, timeout=5) == {
        "method": "echo_jsonrpc",
        "params": {"a": 1},
    }
    assert await client.request("echo", {"a": 2}, timeout=5) == {
        "method": "echo",
        "params": {"a": 2},
    }
    sent = list(client.transcript.messages("send"))
    assert all("jsonrpc" not in frame for frame in sent), "codex's dialect omits jsonrpc; so do we"


async def test_server_error_carries_code_message_and_data_and_is_not_a_transport_error(
    spawn_peer: SpawnPeer,
) -> None:
    client = await spawn_peer()
    with pytest.raises(ServerError) as caught:
        await client.request(
            "error", {"code": -32600, "message": "thread not found", "data": {"x": 1}}
        )
    error = caught.value
    assert (error.code, error.message, error.data) == (-32600, "thread not found", {"x": 1})
    assert error.method == "error"
    assert not isinstance(error, TransportError)
    # The connection is still usable after an error answer.
    assert await client.request("echo", {}, timeout=5) == {"method": "echo", "params": {}}


async def test_a_request_that_is_never_answered_times_out_naming_method_id_elapsed_and_stderr(
    spawn_peer: SpawnPeer,
) -> None:
    client = await spawn_peer()
    # The peer answers first, so its start-up (seconds on a loaded machine) is not what
    # the deadline measures: a second is for reading one line and saying it stays silent.
    assert await client.request("echo", {}, timeout=30) == {"method": "echo", "params": {}}
    with pytest.raises(RequestTimeout) as caught:
        await client.request("silent", {}, timeout=1.0)
    error = caught.value
    assert isinstance(error, TransportError)
    assert error.method == "silent" and error.request_id == 2
    assert 1.0 <= error.elapsed < 5
    text = str(error)
    assert "silent (id 2)" in text and "1.0" in text
    assert "peer: staying silent" in text


async def test_a_crash_mid_request_fails_every_pending_request_at_once_with_exit_code_and_stderr(
    spawn_peer: SpawnPeer,
) -> None:
    client = await spawn_peer()
    waiting = asyncio.create_task(client.request("silent", {}, timeout=30))
    await asyncio.sleep(0.1)
    started = time.monotonic()
    with pytest.raises(ServerExited) as crashed:
        await client.request("crash", {"code": 7}, timeout=30)
    with pytest.raises(ServerExited) as other:
        await waiting
    assert time.monotonic() - started < 5, "pending requests must not wait for their deadline"
    assert crashed.value.returncode == 7 and other.value.returncode == 7
    assert "peer: crashing on purpose" in str(crashed.value)
    assert other.value.method == "silent"
    with pytest.raises(ConnectionClosed):
        await client.request("echo", {}, timeout=5)


async def test_garbage_on_stdout_fails_pending_requests_as_malformed_frame_and_reading_goes_on(
    spawn_peer: SpawnPeer,
) -> None:
    client = await spawn_peer()
    with pytest.raises(MalformedFrame) as caught:
        await client.request("garbage", {}, timeout=5)
    assert isinstance(caught.value, TransportError)
    assert "not JSON" in str(caught.value) and "garbage (id 1)" in str(caught.value)
    assert len(client.frame_errors) == 1
    # The reader survived: the next exchange works.
    assert await client.request("echo", {"after": True}, timeout=5) == {
        "method": "echo",
        "params": {"after": True},
    }
    malformed = [e for e in client.transcript.entries if e.direction == "malformed"]
    assert malformed and "this is { not json" in malformed[0].message["raw"]


async def test_notifications_and_server_requests_between_responses_are_routed(
    spawn_peer: SpawnPeer,
) -> None:
    client = await spawn_peer()
    seen: list[Any] = []

    async def approve(params: Any) -> Any:
        seen.append(params)
        return {"decision": "accept"}

    client.on_request("approve", approve)
    result = await client.request("chatty", {}, timeout=5)
    assert result["client_replied"] == {"id": "srv-1", "result": {"decision": "accept"}}
    assert seen == [{"what": "x"}]
    second = await client.wait_for_notification(
        "progress", lambda n: n.params["step"] == 2, timeout=1
    )
    first = await client.wait_for_notification("progress", timeout=1)
    assert (first.params, second.params) == ({"step": 1}, {"step": 2})


async def test_draining_notifications_leaves_those_it_is_told_to_keep(
    spawn_peer: SpawnPeer,
) -> None:
    client = await spawn_peer()
    await client.request("chatty", {}, timeout=5)
    await client.wait_for_notification(
        "progress", lambda n: n.params["step"] == 2, timeout=1, consume=False
    )
    taken = client.drain_notifications(keep=lambda n: n.params["step"] == 2)
    assert [n.params for n in taken] == [{"step": 1}]
    assert [n.params for n in client.notifications] == [{"step": 2}]


async def test_a_server_request_without_a_handler_gets_a_clear_error_reply(
    spawn_peer: SpawnPeer,
) -> None:
    client = await spawn_peer()
    result = await client.request("chatty", {}, timeout=5)
    reply = result["client_replied"]
    assert reply["id"] == "srv-1"
    assert reply["error"]["code"] == -32601
    assert "no handler for server request 'approve'" in reply["error"]["message"]


async def test_waiting_for_a_notification_that_never_comes_times_out(spawn_peer: SpawnPeer) -> None:
    client = await spawn_peer("--greet")
    assert (await client.wait_for_notification("hello", timeout=5)).method == "hello"
    with pytest.raises(NotificationTimeout) as caught:
        await client.wait_for_notification("hello", timeout=0.2)
    assert "hello did not arrive within 0.2" in str(caught.value)


async def test_a_peer_that_closes_stdout_fails_pending_requests_as_server_exited(
    spawn_peer: SpawnPeer,
) -> None:
    client = await spawn_peer()
    with pytest.raises(ServerExited):
        await client.request("close_stdout", {}, timeout=5)


async def test_close_escalates_to_sigkill_for_a_peer_that_ignores_eof_and_sigterm(
    spawn_peer: SpawnPeer,
) -> None:
    client = await spawn_peer("--ignore-term")
    assert await client.request("echo", {}, timeout=5)
    started = time.monotonic()
    returncode = await client.close(grace=0.2)
    assert returncode == -9
    assert time.monotonic() - started < 5


async def test_nothing_the_server_started_outlives_the_client(spawn_peer: SpawnPeer) -> None:
    client = await spawn_peer()
    grandchild = (await client.request("spawn_child", {}, timeout=5))["pid"]
    await client.close(grace=0.5)
    await asyncio.sleep(0.1)
    assert not _alive(grandchild)


async def test_cancelling_the_test_task_still_ends_the_server(spawn_peer: SpawnPeer) -> None:
    client = await spawn_peer()

    async def use_and_get_cancelled() -> None:
        async with client:
            await client.request("silent", {}, timeout=30)

    task = asyncio.create_task(use_and_get_cancelled())
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert client.returncode is not None or not _alive(client.server.pid)


async def test_transcript_records_both_directions_with_secrets_masked(
    spawn_peer: SpawnPeer,
    tmp_path: Path,
) -> None:
    client = await spawn_peer()
    client.transcript = Transcript(path=tmp_path / "t.jsonl")
    await client.request(
        "echo", {"apiKey": "sk-live-1234567890abcdef", "note": "Bearer abcdefghijkl"}
    )
    entries = read_transcript(tmp_path / "t.jsonl")
    assert [e.direction for e in entries] == ["send", "recv"]
    text = (tmp_path / "t.jsonl").read_text()
    assert "sk-live" not in text and "abcdefghijkl" not in text
    assert entries[0].message["params"]["apiKey"] == "***"
    assert entries[0].time <= entries[1].time
    assert json.loads(text.splitlines()[0])["dir"] == "send"


async def test_many_requests_in_flight_each_get_their_own_answer(spawn_peer: SpawnPeer) -> None:
    client = await spawn_peer()
    results = await asyncio.gather(*(client.request("echo", {"n": n}) for n in range(300)))
    assert [r["params"]["n"] for r in results] == list(range(300))
    sent = [m["params"]["n"] for m in client.transcript.messages("send")]
    received = [m["result"]["params"]["n"] for m in client.transcript.messages("recv")]
    assert sorted(sent) == sorted(received) == list(range(300))


async def test_an_answer_larger_than_a_pipe_holds_arrives_whole(spawn_peer: SpawnPeer) -> None:
    client = await spawn_peer()
    text = "x" * 3_000_000
    result = await client.request("echo", {"text": text}, timeout=30)
    assert result["params"]["text"] == text


async def test_a_last_line_without_its_newline_is_still_read(spawn_peer: SpawnPeer) -> None:
    client = await spawn_peer()
    assert await client.request("last_words", {}, timeout=5) == "unterminated"


async def test_an_answer_changed_by_the_caller_stays_as_received_in_the_transcript(
    spawn_peer: SpawnPeer,
) -> None:
    client = await spawn_peer()
    result = await client.request("echo", {"n": 1}, timeout=5)
    result["params"]["n"] = 2
    received = list(client.transcript.messages("recv"))
    assert received == [{"id": 1, "result": {"method": "echo", "params": {"n": 1}}}]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) counts as ended.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.split(")")[-1].split()[0] != "Z"


async def test_a_request_pending_when_the_client_closes_fails_as_the_server_exits(
    spawn_peer: SpawnPeer,
) -> None:
    client = await spawn_peer()
    waiting = asyncio.create_task(client.request("silent", {}, timeout=30))
    await asyncio.sleep(0.1)
    await client.close(grace=0.5)
    with pytest.raises(ServerExited):
        async with asyncio.timeout(5):
            await waiting


async def test_requests_with_different_deadlines_each_time_out_at_their_own(
    spawn_peer: SpawnPeer,
) -> None:
    client = await spawn_peer()
    # The peer up first: its start-up on a loaded machine can outlast both deadlines.
    answered = await client.request("echo", {}, timeout=30)
    assert answered == {"method": "echo", "params": {}}
    late = asyncio.create_task(client.request("silent", {}, timeout=1.0))
    early = asyncio.create_task(client.request("silent", {}, timeout=0.2))
    with pytest.raises(RequestTimeout) as first:
        await early
    assert not late.done(), "the later deadline must not fire with the earlier one"
    with pytest.raises(RequestTimeout) as second:
        await late
    # Lower bounds only: a deadline never fires early, but a busy machine may run it late.
    assert 0.2 <= first.value.elapsed < second.value.elapsed
    assert second.value.elapsed >= 1.0
