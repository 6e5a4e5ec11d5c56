"""A tiny scripted app-server for the driver's fault branches (stdlib only, run as a script).

It answers thread/start, thread/resume, turn/start and turn/steer the way codex-cli
0.171.0 was measured to (same error codes and messages, turn/start on an active
turn joins it), and misbehaves where the script says:

    peer.py [--threads ID,ID] [--turn-seconds S] [--script JSON]

--threads      ids resumable from the start (threads of an earlier process)
--turn-seconds how long a turn stays active before turn/completed (default 0)
--script       a JSON list of rules {"method", "call"?, "action", "code"?, "message"?}
               action: error (answer code/message), hang (never answer),
               crash (exit 3 without answering); "call" is the 1-based count of
               that method's requests, omitted = every call.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import time
import uuid
from typing import Any

INVALID_REQUEST = -32600


class Refused(Exception):
    """Answered as a JSON-RPC error with code -32600 and this message."""


class Peer:
    def __init__(self, threads: list[str], turn_seconds: float, script: list[Any]) -> None:
        self.threads = set(threads)
        self.turn_seconds = turn_seconds
        self.script = script
        self.calls: dict[str, int] = {}
        self.active: dict[str, tuple[str, float]] = {}  # thread -> (turn id, ends at)

    def send(self, frame: dict[str, Any]) -> None:
        os.write(1, (json.dumps(frame) + "\n").encode())

    def handle(self, message: dict[str, Any]) -> None:
        method, request_id = message.get("method", ""), message.get("id")
        if request_id is None:
            return  # a notification (initialized)
        params = message.get("params") or {}
        self.calls[method] = self.calls.get(method, 0) + 1
        rule = next(
            (
                r
                for r in self.script
                if r["method"] == method and r.get("call", self.calls[method]) == self.calls[method]
            ),
            None,
        )
        if rule is not None and rule["action"] == "crash":
            os._exit(3)
        if rule is not None and rule["action"] == "hang":
            return
        if rule is not None:
            self.send(
                {"id": request_id, "error": {"code": rule["code"], "message": rule["message"]}}
            )
            return
        try:
            result = self.answer(method, params)
        except Refused as refusal:
            self.send(
                {"id": request_id, "error": {"code": INVALID_REQUEST, "message": refusal.args[0]}}
            )
            return
        self.send({"id": request_id, "result": result})
        if method == "turn/start" and self.turn_seconds == 0:
            self.finish_turns(force=True)

    def answer(self, method: str, params: dict[str, Any]) -> Any:
        thread_id = params.get("threadId", "")
        if method == "initialize":
            return {"userAgent": "driver-test-peer"}
        if method == "thread/start":
            thread_id = str(uuid.uuid4())
            self.threads.add(thread_id)
            return {"thread": {"id": thread_id, "status": {"type": "idle"}, "turns": []}}
        if method == "thread/resume":
            if thread_id not in self.threads:
                raise Refused(f"no rollout found for thread id {thread_id}")
            active = self.active.get(thread_id)
            turns = [{"id": active[0], "status": "inProgress"}] if active else []
            return {"thread": {"id": thread_id, "status": {"type": "idle"}, "turns": turns}}
        if thread_id not in self.threads:
            raise Refused(f"thread not found: {thread_id}")
        if method == "turn/start":
            if thread_id not in self.active:  # an active turn is joined, as 0.171.0 does
                turn_id = str(uuid.uuid4())
                self.active[thread_id] = (turn_id, time.monotonic() + self.turn_seconds)
                self.notify("turn/started", thread_id, turn_id, "inProgress")
            return {"turn": {"id": self.active[thread_id][0], "status": "inProgress"}}
        if method == "turn/steer":
            if thread_id not in self.active:
                raise Refused("no active turn to steer")
            turn_id, expected = self.active[thread_id][0], params.get("expectedTurnId")
            if expected != turn_id:
                raise Refused(f"expected active turn id `{expected}` but found `{turn_id}`")
            return {"turnId": turn_id}
        raise Refused(f"Invalid request: unknown variant `{method}`")

    def notify(self, method: str, thread_id: str, turn_id: str, status: str) -> None:
        turn = {"id": turn_id, "status": status}
        self.send({"method": method, "params": {"threadId": thread_id, "turn": turn}})

    def finish_turns(self, *, force: bool = False) -> None:
        now = time.monotonic()
        for thread_id, (turn_id, ends_at) in list(self.active.items()):
            if force or ends_at <= now:
                del self.active[thread_id]
                self.notify("turn/completed", thread_id, turn_id, "completed")

    def serve(self) -> None:
        pending = b""
        while True:
            ends = [ends_at for _, ends_at in self.active.values()]
            wait = max(min(ends) - time.monotonic(), 0.0) if ends else None
            readable, _, _ = select.select([0], [], [], wait)
            if readable:
                chunk = os.read(0, 65536)
                if not chunk:
                    return
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    if line.strip():
                        self.handle(json.loads(line))
            self.finish_turns()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", default="")
    parser.add_argument("--turn-seconds", type=float, default=0.0)
    parser.add_argument("--script", default="[]")
    args = parser.parse_args()
    threads = [t for t in args.threads.split(",") if t]
    Peer(threads, args.turn_seconds, json.loads(args.script)).serve()


if __name__ == "__main__":
    main()
