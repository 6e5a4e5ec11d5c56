"""A model response's output items, reported as they stream and kept in the history.

Measured on 0.120.0 and 0.171.0 (docs/observations/real-turns.md): an agentMessage item
takes the provider's item id, starts empty on `output_item.added` and each text delta
becomes `item/agentMessage/delta`; a message that arrives whole is started and completed
at once; a reasoning item is started and completed when it is done, its summary and
content as texts. Every item goes into the history the next model request sends, in
stream order: a reasoning item with its content and encrypted content (null when it had
none), a function call as it came. Function calls are reported by the code that runs them
(`tool_calls.py`), after the stream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codex_probe.fake_appserver.layout import HistoryEntry, message
from codex_probe.fake_appserver.threads import LoadedThread
from codex_probe.fake_appserver.wire import Wire, new_id, now_ms

# Sends the client a notification: (method, params).
Notify = Callable[[str, Any], None]


class StreamedItems:
    """The stream listener of one model request of a turn (`provider.StreamListener`)."""

    def __init__(
        self, wire: Wire, notify: Notify, thread: LoadedThread, turn: dict[str, Any]
    ) -> None:
        self.wire = wire
        self.notify = notify
        self.thread = thread
        self.turn = turn
        self._streaming: dict[str, dict[str, Any]] = {}
        # The history entries this response added, in order.
        self.kept: list[HistoryEntry] = []

    async def __call__(self, kind: str, payload: dict[str, Any]) -> None:
        if kind == "added":
            self._announce(payload)
        elif kind == "delta":
            self._delta(payload)
        elif kind == "done" and payload.get("type") == "message":
            self._message_done(payload)
        elif kind == "done" and payload.get("type") == "reasoning":
            self._reasoning_done(payload)
        elif kind == "done" and payload.get("type") == "function_call":
            call = {k: payload.get(k) for k in ("type", "name", "arguments", "call_id")}
            self._keep({"kind": "tool", "item": call})

    def forget(self) -> None:
        """Take what this response added back out of the history."""
        history: list[HistoryEntry] = self.thread.record["history"]
        for entry in self.kept:
            if entry in history:
                history.remove(entry)
        self.kept.clear()

    def _keep(self, entry: HistoryEntry) -> None:
        self.thread.record["history"].append(entry)
        self.kept.append(entry)

    def _report(self, phase: str, item: dict[str, Any]) -> None:
        params = self.wire.item_params(phase, item, self.thread.id, self.turn["id"])
        self.notify(f"item/{phase}", params)

    def _announce(self, payload: dict[str, Any]) -> None:
        started = {"type": "agentMessage", "id": payload.get("id") or new_id(), "text": ""}
        started["started_ms"] = now_ms()
        self._streaming[started["id"]] = started
        self._report("started", started)

    def _delta(self, payload: dict[str, Any]) -> None:
        streamed = self._streaming.get(str(payload.get("item_id")))
        if streamed is None:
            return
        delta = str(payload.get("delta", ""))
        streamed["text"] += delta
        self.notify(
            "item/agentMessage/delta",
            {
                "threadId": self.thread.id,
                "turnId": self.turn["id"],
                "itemId": streamed["id"],
                "delta": delta,
            },
        )

    def _message_done(self, payload: dict[str, Any]) -> None:
        text = "".join(
            str(part.get("text", ""))
            for part in payload.get("content", [])
            if part.get("type") == "output_text"
        )
        self._keep({"kind": "assistant", "item": message("assistant", text)})
        item = self._streaming.pop(str(payload.get("id")), None)
        if item is None:
            item = {"type": "agentMessage", "id": payload.get("id") or new_id()}
            item["started_ms"] = now_ms()
            self._report("started", {**item, "text": ""})
        item["text"] = text
        item["completed_ms"] = now_ms()
        self.turn["items"].append(item)
        self._report("completed", item)

    def _reasoning_done(self, payload: dict[str, Any]) -> None:
        summary = [str(part.get("text", "")) for part in payload.get("summary") or []]
        content = [str(part.get("text", "")) for part in payload.get("content") or []]
        self._keep(
            {
                "kind": "reasoning",
                "item": {
                    "type": "reasoning",
                    "summary": payload.get("summary") or [],
                    "content": payload.get("content") or None,
                    "encrypted_content": payload.get("encrypted_content"),
                },
            }
        )
        item: dict[str, Any] = {
            "type": "reasoning",
            "id": payload.get("id") or new_id(),
            "summary": summary,
            "content": content,
            "started_ms": now_ms(),
        }
        self._report("started", item)
        item["completed_ms"] = now_ms()
        self.turn["items"].append(item)
        self._report("completed", item)
