"""Reply scripts on the wiretap, over real HTTP on loopback, as codex reads them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest

from codex_probe.rig.captures import CapturedRequest
from codex_probe.rig.replies import (
    End,
    FunctionCall,
    Hold,
    Message,
    Reasoning,
    Reply,
    exec_command,
)
from codex_probe.rig.wiretap import Wiretap
from tests.probes.test_wiretap import MODEL_BODY, parse_sse


async def answer(tap: Wiretap, body: dict[str, Any] = MODEL_BODY) -> list[dict[str, Any]]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{tap.base_url}/responses", json=body) as response,
    ):
        return parse_sse(await response.text())


def done_items(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["item"] for e in events if e["type"] == "response.output_item.done"]


async def test_a_function_call_is_streamed_with_a_call_id_naming_its_request_and_position() -> None:
    reply = Reply(items=(Message("running it"), exec_command("echo hi")))
    async with Wiretap([reply]) as tap:
        events = await answer(tap)
        assert tap.calls == {"call_wiretap_0_1": 0}
        assert tap.answers == {0: "running it"}
    assert [e["type"] for e in events] == [
        "response.created",
        "response.output_item.done",
        "response.output_item.done",
        "response.completed",
    ]
    call = done_items(events)[1]
    assert (call["type"], call["name"], call["call_id"]) == (
        "function_call",
        "exec_command",
        "call_wiretap_0_1",
    )
    assert json.loads(call["arguments"]) == {"cmd": "echo hi", "yield_time_ms": 5000}
    assert [e["output_index"] for e in events[1:3]] == [0, 1]


def test_exec_command_takes_further_arguments_and_a_call_id_of_the_scripts_own() -> None:
    call = exec_command("ls", call_id="mine", sandbox_permissions="require_escalated")
    assert call == FunctionCall(
        "exec_command",
        json.dumps(
            {"cmd": "ls", "yield_time_ms": 5000, "sandbox_permissions": "require_escalated"}
        ),
        "mine",
    )


async def test_a_reasoning_item_carries_its_summary_content_and_encrypted_content() -> None:
    reasoning = Reasoning(summary=("one", "two"), content=("raw",), encrypted_content="ENC")
    async with Wiretap([Reply(items=(reasoning,))]) as tap:
        [item] = done_items(await answer(tap))
    assert item == {
        "type": "reasoning",
        "id": "rs_wiretap_0_0",
        "summary": [
            {"type": "summary_text", "text": "one"},
            {"type": "summary_text", "text": "two"},
        ],
        "content": [{"type": "reasoning_text", "text": "raw"}],
        "encrypted_content": "ENC",
    }


async def test_several_messages_keep_a_plain_reply_s_first_id_and_stream_their_deltas() -> None:
    reply = Reply(items=(Message("one"), Message("two", deltas=2)))
    async with Wiretap([reply]) as tap:
        events = await answer(tap)
        assert tap.answers == {0: "one\ntwo"}
    assert [i["id"] for i in done_items(events)] == ["msg_wiretap_0", "msg_wiretap_0_1"]
    deltas = [e["delta"] for e in events if e["type"] == "response.output_text.delta"]
    assert deltas == ["tw", "o"]


async def test_a_failed_reply_streams_its_items_then_response_failed_and_no_completed() -> None:
    reply = Reply(text="partial", end=End.FAILED, failure_code="rate_limit_exceeded")
    async with Wiretap([reply]) as tap:
        events = await answer(tap)
    assert [e["type"] for e in events] == [
        "response.created",
        "response.output_item.done",
        "response.failed",
    ]
    assert events[2]["response"]["error"] == {
        "code": "rate_limit_exceeded",
        "message": "scripted error from the wiretap",
    }


async def test_a_cut_reply_ends_its_body_without_response_completed() -> None:
    async with Wiretap([Reply(text="partial", end=End.CUT)]) as tap:
        events = await answer(tap)
        assert tap.dropped == []
    assert [e["type"] for e in events] == ["response.created", "response.output_item.done"]


async def test_a_dropped_reply_closes_the_connection_before_the_body_ends() -> None:
    async with Wiretap([Reply(text="partial", end=End.DROPPED)]) as tap:
        async with (
            aiohttp.ClientSession() as session,
            session.post(f"{tap.base_url}/responses", json=MODEL_BODY) as response,
        ):
            with pytest.raises(aiohttp.ClientPayloadError):
                await response.read()
        assert tap.dropped == [0]


async def test_an_empty_script_answers_a_response_without_output_items() -> None:
    async with Wiretap([Reply(items=())]) as tap:
        events = await answer(tap)
        assert tap.answers == {0: ""}
    assert [e["type"] for e in events] == ["response.created", "response.completed"]


async def test_a_hold_in_the_script_sends_what_comes_before_it_and_holds_the_rest() -> None:
    reply = Reply(items=(Reasoning(), Hold(deadline_s=30.0), Message("after")))
    async with (
        Wiretap([reply]) as tap,
        aiohttp.ClientSession() as session,
        session.post(f"{tap.base_url}/responses", json=MODEL_BODY) as response,
    ):
        await response.content.readuntil(b"\n\n")  # response.created
        before = await response.content.readuntil(b"\n\n")
        assert b'"reasoning"' in before
        rest = asyncio.ensure_future(response.content.read())
        done, _ = await asyncio.wait({rest}, timeout=0.2)
        assert not done, "the held part went on before it was released"
        tap.release_held()
        async with asyncio.timeout(10):
            assert b'"after"' in await rest


async def test_a_second_hold_waits_for_a_release_after_the_first_hold_passed() -> None:
    reply = Reply(items=(Hold(), Message("one"), Hold(), Message("two")))
    async with (
        Wiretap([reply]) as tap,
        aiohttp.ClientSession() as session,
        session.post(f"{tap.base_url}/responses", json=MODEL_BODY) as response,
    ):
        await response.content.readuntil(b"\n\n")
        tap.release_held()
        async with asyncio.timeout(10):
            assert b'"one"' in await response.content.readuntil(b"\n\n")
        rest = asyncio.ensure_future(response.content.read())
        done, _ = await asyncio.wait({rest}, timeout=0.2)
        assert not done, "one release let both holds go"
        tap.release_held()
        async with asyncio.timeout(10):
            assert b'"two"' in await rest


async def test_the_output_codex_sends_back_for_a_call_is_found_by_its_call_id() -> None:
    follow_up = {
        **MODEL_BODY,
        "input": [
            *MODEL_BODY["input"],
            {"type": "function_call", "call_id": "call_wiretap_0_0", "name": "exec_command"},
            {"type": "function_call_output", "call_id": "call_wiretap_0_0", "output": "hi\n"},
        ],
    }
    async with Wiretap([Reply(items=(exec_command("echo hi"),)), "done"]) as tap:
        await answer(tap)
        assert tap.call_output("call_wiretap_0_0") is None
        await answer(tap, follow_up)
        assert tap.call_output("call_wiretap_0_0") == "hi\n"
        assert tap.model_requests()[1].call_outputs() == {"call_wiretap_0_0": "hi\n"}


def test_an_output_given_as_content_parts_is_read_as_their_text() -> None:
    output = [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}]
    body = {"input": [{"type": "function_call_output", "call_id": "c", "output": output}]}
    request = CapturedRequest(0, "POST", "/v1/responses", {}, {}, body, None, 0.0)
    assert request.call_outputs() == {"c": "ab"}
    assert request.input_items("function_call_output") == body["input"]


def test_a_plain_reply_is_still_one_message_of_its_text() -> None:
    reply = Reply(text="ok", deltas=2)
    assert reply.steps == (Message("ok", 2),)
    assert (reply.message_text, reply.function_calls) == ("ok", ())
