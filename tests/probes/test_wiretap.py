"""The wiretap, over real HTTP on loopback, as codex would talk to it."""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
import time
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest

from codex_probe.rig.wiretap import CapturedRequest, Reply, Wiretap, mask_headers

MODEL_BODY: dict[str, Any] = {
    "model": "mock-model",
    "stream": True,
    "input": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    ],
}


def parse_sse(text: str) -> list[dict[str, Any]]:
    """SSE frames -> the JSON of each `data:` line, checking `event:` names its type."""
    events = []
    for frame in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in frame.splitlines())
        data = json.loads(lines["data"])
        assert lines["event"] == data["type"]
        events.append(data)
    return events


async def post_json(
    session: aiohttp.ClientSession, url: str, body: Any, **kwargs: Any
) -> tuple[int, str, str]:
    async with session.post(url, json=body, **kwargs) as response:
        return response.status, response.headers.get("Content-Type", ""), await response.text()


async def test_base_url_is_loopback_and_the_port_accepts_connections_as_soon_as_it_starts() -> None:
    async with Wiretap() as tap:
        url = urlsplit(tap.base_url)
        assert (url.scheme, url.hostname, url.port, url.path) == (
            "http",
            "127.0.0.1",
            tap.port,
            "/v1",
        )
        with socket.create_connection(("127.0.0.1", tap.port), timeout=2):
            pass


async def test_model_request_is_answered_with_created_one_assistant_message_and_completed() -> None:
    async with Wiretap(["hello from the script"]) as tap, aiohttp.ClientSession() as session:
        status, content_type, text = await post_json(
            session, f"{tap.base_url}/responses", MODEL_BODY
        )
    assert status == 200
    assert content_type.startswith("text/event-stream")
    events = parse_sse(text)
    assert [e["type"] for e in events] == [
        "response.created",
        "response.output_item.done",
        "response.completed",
    ]
    message = events[1]["item"]
    assert (message["type"], message["role"]) == ("message", "assistant")
    assert message["content"] == [{"type": "output_text", "text": "hello from the script"}]
    assert events[2]["response"]["usage"]["total_tokens"] == 0


async def test_the_events_streamed_to_each_answer_are_remembered_by_request() -> None:
    script = [Reply(text="in two pieces", deltas=2)]
    async with Wiretap(script) as tap, aiohttp.ClientSession() as session:
        await post_json(session, f"{tap.base_url}/responses", MODEL_BODY)
        await post_json(session, f"{tap.base_url}/responses", MODEL_BODY)
    assert tap.streamed[0] == [
        "response.created",
        "response.output_item.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_item.done",
        "response.completed",
    ]
    assert tap.streamed[1] == [
        "response.created",
        "response.output_item.done",
        "response.completed",
    ]
    assert tap.abandoned == []


async def test_scripted_replies_are_used_in_order_then_the_default_names_the_request() -> None:
    async with Wiretap(["first", Reply(text="second")]) as tap, aiohttp.ClientSession() as session:
        tap.queue_replies("third")
        texts = []
        for _ in range(4):
            _, _, body = await post_json(session, f"{tap.base_url}/responses", MODEL_BODY)
            texts.append(parse_sse(body)[1]["item"]["content"][0]["text"])
    assert texts == ["first", "second", "third", "wiretap reply 3"]


async def test_responder_answers_once_the_scripted_queue_is_empty() -> None:
    seen: list[int] = []

    def responder(request: CapturedRequest) -> str:
        seen.append(request.index)
        return f"computed for {request.body['model']}"

    async with Wiretap(["queued"], responder=responder) as tap, aiohttp.ClientSession() as session:
        first = await post_json(session, f"{tap.base_url}/responses", MODEL_BODY)
        second = await post_json(session, f"{tap.base_url}/responses", MODEL_BODY)
    assert parse_sse(first[2])[1]["item"]["content"][0]["text"] == "queued"
    assert parse_sse(second[2])[1]["item"]["content"][0]["text"] == "computed for mock-model"
    assert seen == [1]


async def test_every_request_is_captured_in_order_with_path_query_body_and_time() -> None:
    async with Wiretap() as tap, aiohttp.ClientSession() as session:
        before = time.monotonic()
        await post_json(session, f"{tap.base_url}/responses", MODEL_BODY)
        async with session.get(f"{tap.base_url}/models?client_version=1.2"):
            pass
        requests = tap.requests
    assert [(r.index, r.method, r.path) for r in requests] == [
        (0, "POST", "/v1/responses"),
        (1, "GET", "/v1/models"),
    ]
    assert requests[0].body == MODEL_BODY
    assert requests[1].query == {"client_version": "1.2"}
    assert before <= requests[0].received_at <= requests[1].received_at <= time.monotonic()
    assert [r.index for r in tap.model_requests()] == [0]


async def test_credentials_are_masked_in_captured_headers_but_the_scheme_is_kept() -> None:
    headers = {
        "Authorization": "Bearer sk-secret-value",
        "OpenAI-Api-Key": "sk-other",
        "Cookie": "session=abc",
        "X-Custom-Token": "t0k3n",
        "Session-Id": "not-a-secret",
    }
    async with Wiretap() as tap, aiohttp.ClientSession() as session:
        await post_json(session, f"{tap.base_url}/responses", MODEL_BODY, headers=headers)
        captured = tap.requests[0].headers
    assert captured["authorization"] == "Bearer ***"
    assert captured["openai-api-key"] == "***"
    assert captured["cookie"] == "***"
    assert captured["x-custom-token"] == "***"
    assert captured["session-id"] == "not-a-secret"
    assert "sk-secret-value" not in json.dumps(tap.requests[0].to_json())


def test_mask_headers_masks_a_bare_authorization_value_entirely() -> None:
    assert mask_headers({"Authorization": "opaque"}) == {"authorization": "***"}


async def test_unknown_path_answers_a_404_json_naming_it_and_is_still_captured() -> None:
    async with Wiretap() as tap, aiohttp.ClientSession() as session:
        status, content_type, text = await post_json(session, f"{tap.base_url}/nowhere", {"a": 1})
        requests = tap.requests
    assert status == 404
    assert content_type.startswith("application/json")
    assert "POST /v1/nowhere" in json.loads(text)["error"]["message"]
    assert [(r.path, r.body) for r in requests] == [("/v1/nowhere", {"a": 1})]


async def test_scripted_error_status_answers_an_openai_style_error_instead_of_a_stream() -> None:
    reply = Reply(status=429, error_message="slow down")
    async with Wiretap([reply]) as tap, aiohttp.ClientSession() as session:
        status, _, text = await post_json(session, f"{tap.base_url}/responses", MODEL_BODY)
    assert status == 429
    assert json.loads(text)["error"]["message"] == "slow down"


async def test_delayed_reply_holds_the_answer_back_for_the_delay() -> None:
    async with (
        Wiretap([Reply(text="late", delay_s=0.4)]) as tap,
        aiohttp.ClientSession() as session,
    ):
        started = time.monotonic()
        _, _, text = await post_json(session, f"{tap.base_url}/responses", MODEL_BODY)
        elapsed = time.monotonic() - started
    assert elapsed >= 0.4
    assert parse_sse(text)[1]["item"]["content"][0]["text"] == "late"


async def test_a_held_answer_opens_its_stream_at_once_and_holds_the_rest() -> None:
    async with (
        Wiretap([Reply(text="late", delay_s=1.0)]) as tap,
        aiohttp.ClientSession() as session,
    ):
        started = time.monotonic()
        async with session.post(f"{tap.base_url}/responses", json=MODEL_BODY) as response:
            first = await response.content.readuntil(b"\n\n")
            opened = time.monotonic() - started
            rest = await response.content.read()
        elapsed = time.monotonic() - started
    # As a model that has begun to answer: codex sees the stream open, then waits.
    assert b"response.created" in first and opened < 0.5
    assert elapsed >= 1.0
    assert b"response.completed" in rest


async def test_closing_the_wiretap_cuts_a_pending_delay_short() -> None:
    tap = Wiretap([Reply(delay_s=60.0)])
    await tap.start()
    async with aiohttp.ClientSession() as session:
        pending = asyncio.create_task(post_json(session, f"{tap.base_url}/responses", MODEL_BODY))
        await tap.wait_for_requests(1, timeout=5)
        started = time.monotonic()
        await tap.close()
        assert time.monotonic() - started < 5
        async with asyncio.timeout(5):
            await asyncio.gather(pending, return_exceptions=True)


async def test_unary_compact_endpoint_answers_output_with_one_compaction_item() -> None:
    async with Wiretap() as tap, aiohttp.ClientSession() as session:
        body = {"model": "m", "input": [], "instructions": "x"}
        status, content_type, text = await post_json(
            session, f"{tap.base_url}/responses/compact", body
        )
        assert [r.index for r in tap.compaction_requests()] == [0]
    assert status == 200
    assert content_type.startswith("application/json")
    output = json.loads(text)["output"]
    assert [item["type"] for item in output] == ["compaction"]
    assert output[0]["encrypted_content"].startswith("WIRETAP_COMPACTION_SUMMARY")


async def test_streamed_compaction_trigger_is_answered_with_one_compaction_item() -> None:
    body = {**MODEL_BODY, "input": [*MODEL_BODY["input"], {"type": "compaction_trigger"}]}
    custom = [{"type": "compaction", "encrypted_content": "CUSTOM"}]
    async with Wiretap(["not used"], compaction_output=custom) as tap:
        async with aiohttp.ClientSession() as session:
            _, _, text = await post_json(session, f"{tap.base_url}/responses", body)
        assert tap.requests[0].is_compaction_trigger
        assert [r.index for r in tap.compaction_requests()] == [0]
    done = [e["item"] for e in parse_sse(text) if e["type"] == "response.output_item.done"]
    assert done == custom


async def test_compaction_error_status_is_answered_for_both_compaction_forms() -> None:
    trigger_body = {**MODEL_BODY, "input": [{"type": "compaction_trigger"}]}
    async with Wiretap(compaction_status=500) as tap, aiohttp.ClientSession() as session:
        unary = await post_json(session, f"{tap.base_url}/responses/compact", {})
        streamed = await post_json(session, f"{tap.base_url}/responses", trigger_body)
    assert (unary[0], streamed[0]) == (500, 500)


async def test_wait_for_requests_returns_the_matching_requests_once_enough_arrived() -> None:
    async with Wiretap() as tap, aiohttp.ClientSession() as session:
        waiter = asyncio.create_task(
            tap.wait_for_requests(2, timeout=5, predicate=lambda r: r.is_model_request)
        )
        await post_json(session, f"{tap.base_url}/other", {})
        await post_json(session, f"{tap.base_url}/responses", MODEL_BODY)
        await post_json(session, f"{tap.base_url}/responses", MODEL_BODY)
        matched = await waiter
    assert [r.index for r in matched] == [1, 2]


async def test_wait_for_requests_times_out_naming_what_did_arrive() -> None:
    async with Wiretap() as tap, aiohttp.ClientSession() as session:
        await post_json(session, f"{tap.base_url}/elsewhere", {})
        with pytest.raises(TimeoutError, match=r"wanted 2 .*got 1.*POST /v1/elsewhere"):
            await tap.wait_for_requests(2, timeout=0.2)


async def test_gzip_encoded_body_is_decoded_before_parsing() -> None:
    raw = gzip.compress(json.dumps(MODEL_BODY).encode())
    headers = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
    async with Wiretap() as tap, aiohttp.ClientSession() as session:
        async with session.post(f"{tap.base_url}/responses", data=raw, headers=headers):
            pass
        assert tap.requests[0].body == MODEL_BODY


async def test_a_body_that_is_not_json_is_kept_as_text() -> None:
    async with Wiretap() as tap, aiohttp.ClientSession() as session:
        async with session.post(f"{tap.base_url}/upload", data=b"plain words"):
            pass
        captured = tap.requests[0]
    assert (captured.body, captured.body_text) == (None, "plain words")
    assert captured.to_json()["body_text"] == "plain words"


def test_a_reply_with_deltas_announces_the_item_then_streams_its_text() -> None:
    from codex_probe.rig.wiretap import assistant_message, response_events

    events = response_events("r1", [assistant_message("m1", "abcdef")], deltas=2)
    kinds = [e["type"] for e in events]
    assert kinds == [
        "response.created",
        "response.output_item.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_item.done",
        "response.completed",
    ]
    assert events[1]["item"]["content"] == []
    assert [e["delta"] for e in events[2:4]] == ["abc", "def"]


async def test_an_answer_held_until_released_goes_on_when_released_not_at_its_deadline() -> None:
    tap = Wiretap([Reply(text="late", delay_s=30.0, until_released=True)])
    async with (
        tap,
        aiohttp.ClientSession() as session,
        session.post(f"{tap.base_url}/responses", json=MODEL_BODY) as response,
    ):
        await response.content.readuntil(b"\n\n")  # response.created: it is held now
        rest = asyncio.ensure_future(response.content.read())
        done, _ = await asyncio.wait({rest}, timeout=0.2)
        assert not done, "the held answer went on before it was released"
        tap.release_held()
        async with asyncio.timeout(10):
            text = (await rest).decode()
    assert '"text": "late"' in text or '"text":"late"' in text


async def test_a_release_before_a_request_arrives_does_not_let_that_answer_go() -> None:
    async with (
        Wiretap([Reply(text="late", delay_s=30.0, until_released=True)]) as tap,
        aiohttp.ClientSession() as session,
    ):
        tap.release_held()  # an earlier turn's release: this answer is held anew
        async with session.post(f"{tap.base_url}/responses", json=MODEL_BODY) as response:
            await response.content.readuntil(b"\n\n")
            rest = asyncio.ensure_future(response.content.read())
            done, _ = await asyncio.wait({rest}, timeout=0.2)
            assert not done, "a release that came before the request let its answer go"
            tap.release_held()
            async with asyncio.timeout(10):
                await rest
