"""A mock of the Responses API on 127.0.0.1, answering as codex-probe's wiretap does (the
rig/wiretap.py of codex-probe, with the standard library's http.server)."""

from __future__ import annotations

import contextlib
import json
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from codex_probe.probes.releases.repro.script.outcomes import json_or_none

# The mock's answers where the scenario queued none: codex-probe's wiretap gives the same.
DEFAULT_REPLY_TEXT = "wiretap reply {index}"
COMPACTION_SUMMARY = "WIRETAP_COMPACTION_SUMMARY {index}"


class MockProvider:
    """Answers codex's model requests on 127.0.0.1 as codex-probe's wiretap does: an SSE
    stream of a queued reply (one assistant message, or its scripted items: messages,
    reasoning, function calls, holds; ended by response.completed, response.failed, or
    cut off), else one message of DEFAULT_REPLY_TEXT, or a compaction item for either form
    of remote compaction; every request is kept."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.answers: dict[int, str] = {}
        self.queue: list[dict[str, Any]] = []
        self.streams = 0  # the id of each streamed response counts them, as the wiretap's
        self.arrived = threading.Condition()
        self.closing = threading.Event()
        # Set by release_held() (and by close()): answers held until released go on.
        self.released = threading.Event()
        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive and chunked streams, as codex expects

            def do_POST(self) -> None:
                provider.handle(self)

            do_GET = do_PUT = do_DELETE = do_POST

            def log_message(self, format: str, *args: Any) -> None:
                pass  # codex's requests are kept, not logged

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.closing.set()  # cuts a held reply short
        self.released.set()
        self.server.shutdown()
        self.server.server_close()

    def count(self) -> int:
        with self.arrived:
            return len(self.requests)

    def release_held(self) -> None:
        """Let every answer held until released go on; later ones are held anew."""
        with self.arrived:
            released, self.released = self.released, threading.Event()
        released.set()

    def queue_reply(self, reply: dict[str, Any]) -> None:
        with self.arrived:
            self.queue.append(reply)

    def wait_for(self, count: int, timeout: float) -> bool:
        with self.arrived:
            return self.arrived.wait_for(lambda: len(self.requests) >= count, timeout)

    def handle(self, http: BaseHTTPRequestHandler) -> None:
        body = json_or_none(_read_body(http))
        path = urlsplit(http.path).path
        with self.arrived:
            index = len(self.requests)
            self.requests.append(
                {"index": index, "method": http.command, "path": path, "body": body}
            )
            self.arrived.notify_all()
        compaction = {
            "type": "compaction",
            "encrypted_content": COMPACTION_SUMMARY.format(index=index),
        }
        if http.command == "POST" and path.endswith("/responses/compact"):
            _send_json(http, 200, {"output": [compaction]})
        elif http.command == "POST" and path.endswith("/responses"):
            if _ends_with_compaction_trigger(body):
                self._stream(http, [compaction], {})
                return
            with self.arrived:
                reply = self.queue.pop(0) if self.queue else {}
            text = str(reply.get("text", DEFAULT_REPLY_TEXT.format(index=index)))
            script = reply.get("items")
            plain = {"type": "message", "text": text, "deltas": reply.get("deltas", 0)}
            steps = script if isinstance(script, list) else [plain]
            items = _items(steps, index)
            self.answers[index] = "\n".join(
                str(step.get("text", "")) for step in steps if step.get("type") == "message"
            )
            self._stream(http, items, reply)
        else:
            message = f"wiretap: no route for {http.command} {path}"
            _send_json(http, 404, {"error": {"message": message, "type": "not_found"}})

    def _stream(
        self, http: BaseHTTPRequestHandler, items: list[dict[str, Any]], reply: dict[str, Any]
    ) -> None:
        http.send_response(200)
        http.send_header("Content-Type", "text/event-stream")
        http.send_header("Cache-Control", "no-cache")
        http.send_header("Transfer-Encoding", "chunked")
        http.end_headers()
        with self.arrived:
            self.streams += 1
            number = self.streams
        released = self.released  # taken as the request arrives, as the wiretap does
        try:
            for position, event in enumerate(response_events(number, items, reply)):
                if event["type"] == "hold":
                    released = self._hold(event, released)
                    continue
                data = f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
                http.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                http.wfile.flush()
                if position == 0:  # response.created: the model has begun to answer
                    hold = {"deadline_s": reply.get("delay_s", 0.0)}
                    hold["until_released"] = bool(reply.get("until_released"))
                    released = self._hold(hold, released)
            if reply.get("end") == "dropped":  # closed mid-body, without the last chunk
                http.close_connection = True
                return
            http.wfile.write(b"0\r\n\r\n")
            http.wfile.flush()
        except OSError:
            http.close_connection = True  # codex hung up on a held answer (an interrupt)

    def _hold(self, hold: dict[str, Any], released: threading.Event) -> threading.Event:
        """Wait out a hold (the mock closing cuts it short, and a release one held until
        released); the release a later hold of the stream waits for."""
        deadline = float(hold.get("deadline_s", 0.0))
        if deadline > 0:
            waited = released if hold.get("until_released") else self.closing
            waited.wait(deadline)
        with self.arrived:
            return self.released


def _items(steps: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
    """The Responses items of a reply's scripted steps (holds kept in place), positioned
    as the wiretap positions them: holds are not output items."""
    items, position = [], 0
    for step in steps:
        items.append(_item(step, index, position))
        position += step.get("type") != "hold"
    return items


def _item(step: dict[str, Any], index: int, position: int) -> dict[str, Any]:
    """The Responses item of one scripted step, with the ids codex-probe's wiretap gives
    (a hold stays a hold)."""
    kind = step.get("type")
    if kind == "message":
        suffix = "" if position == 0 else f"_{position}"
        return {
            "type": "message",
            "role": "assistant",
            "id": f"msg_wiretap_{index}{suffix}",
            "content": [{"type": "output_text", "text": str(step.get("text", ""))}],
            "deltas": int(step.get("deltas", 0)),
        }
    if kind == "reasoning":
        item: dict[str, Any] = {
            "type": "reasoning",
            "id": f"rs_wiretap_{index}_{position}",
            "summary": [{"type": "summary_text", "text": t} for t in step.get("summary", [])],
        }
        if step.get("content"):
            item["content"] = [{"type": "reasoning_text", "text": t} for t in step["content"]]
        if step.get("encrypted_content") is not None:
            item["encrypted_content"] = step["encrypted_content"]
        return item
    if kind == "function_call":
        return {
            "type": "function_call",
            "id": f"fc_wiretap_{index}_{position}",
            "call_id": step.get("call_id") or f"call_wiretap_{index}_{position}",
            "name": step.get("name"),
            "arguments": step.get("arguments"),
        }
    return {"type": "hold", **step}


def response_events(
    number: int, items: list[dict[str, Any]], reply: dict[str, Any]
) -> list[dict[str, Any]]:
    """The events of one model answer (holds in their place); a message may stream in
    pieces first (its own `deltas`, else the reply's); the stream ends as the reply says."""
    response_id = f"resp_{number}"
    events: list[dict[str, Any]] = [{"type": "response.created", "response": {"id": response_id}}]
    position = -1
    for item in items:
        if item.get("type") == "hold":
            events.append(item)
            continue
        position += 1
        own = item.pop("deltas", None)  # a scripted message's own, else the reply's
        pieces = int(reply.get("deltas", 0) if own is None else own)
        if pieces and item.get("type") == "message":
            text = "".join(part.get("text", "") for part in item["content"])
            size = max(1, -(-len(text) // pieces))
            chunks = [text[i : i + size] for i in range(0, len(text), size)] or [""]
            announced = {**item, "content": []}
            added = {"type": "response.output_item.added", "output_index": position}
            events.append({**added, "item": announced})
            events += [
                {
                    "type": "response.output_text.delta",
                    "item_id": item.get("id"),
                    "output_index": position,
                    "content_index": 0,
                    "delta": chunk,
                }
                for chunk in chunks
            ]
        done = {"type": "response.output_item.done", "output_index": position, "item": item}
        events.append(done)
    end = reply.get("end", "completed")
    if end == "failed":
        error = {"code": reply.get("failure_code"), "message": reply.get("error_message")}
        events.append({"type": "response.failed", "response": {"id": response_id, "error": error}})
    if end != "completed":
        return events
    tokens_in, tokens_out = int(reply.get("input_tokens", 0)), int(reply.get("output_tokens", 0))
    usage = {
        "input_tokens": tokens_in,
        "input_tokens_details": None,
        "output_tokens": tokens_out,
        "output_tokens_details": None,
        "total_tokens": tokens_in + tokens_out,
    }
    events.append({"type": "response.completed", "response": {"id": response_id, "usage": usage}})
    return events


def _read_body(http: BaseHTTPRequestHandler) -> bytes:
    if http.headers.get("Transfer-Encoding", "").lower() == "chunked":
        raw = b""
        while size := int(http.rfile.readline().split(b";")[0].strip() or b"0", 16):
            raw += http.rfile.read(size)
            http.rfile.readline()
        while http.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass  # trailers
    else:
        raw = http.rfile.read(int(http.headers.get("Content-Length") or 0))
    encoding = http.headers.get("Content-Encoding", "").lower()
    # Undecodable, it is kept as sent: not JSON, so no value is read from it.
    if encoding in ("gzip", "deflate"):
        with contextlib.suppress(zlib.error):
            raw = zlib.decompress(raw, 47)  # 47: a gzip or a zlib header, whichever it is
    return raw


def _send_json(http: BaseHTTPRequestHandler, status: int, document: Any) -> None:
    data = json.dumps(document).encode()
    http.send_response(status)
    http.send_header("Content-Type", "application/json")
    http.send_header("Content-Length", str(len(data)))
    http.end_headers()
    http.wfile.write(data)


def _ends_with_compaction_trigger(body: Any) -> bool:
    items = body.get("input") if isinstance(body, dict) else None
    last = items[-1] if isinstance(items, list) and items else None
    return isinstance(last, dict) and last.get("type") == "compaction_trigger"
