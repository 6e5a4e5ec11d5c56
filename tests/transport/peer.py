"""A small scripted JSON-RPC peer for transport tests (stdlib only, run as a script).

Each request's method says how the peer behaves, so one peer plays every role:
  echo           answer {"method", "params"}
  echo_jsonrpc   the same, with "jsonrpc": "2.0" on the frame
  error          answer an error with params.code / params.message / params.data
  crash          write to stderr, then exit with params.code without answering
  garbage        write a line that is not JSON, and answer nothing
  silent         never answer
  chatty         send two notifications and a server request, wait for its answer,
                 then answer with what the client replied
  close_stdout   close stdout and keep running
  last_words     answer without the line's newline, then close stdout and keep running
  spawn_child    start a grandchild `sleep` and answer its pid
Flags: --ignore-term (ignore SIGTERM and stdin EOF: only SIGKILL ends it),
       --greet (send a notification before reading anything).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import Any


def send(frame: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(frame) + "\n")
    sys.stdout.flush()


def read() -> dict[str, Any] | None:
    line = sys.stdin.readline()
    if not line:
        return None
    parsed: dict[str, Any] = json.loads(line)
    return parsed


def handle(request: dict[str, Any]) -> None:
    method, params, request_id = (
        request.get("method"),
        request.get("params") or {},
        request.get("id"),
    )
    if method == "echo":
        send({"id": request_id, "result": {"method": method, "params": params}})
    elif method == "echo_jsonrpc":
        send({"jsonrpc": "2.0", "id": request_id, "result": {"method": method, "params": params}})
    elif method == "error":
        error = {"code": params.get("code", -32000), "message": params.get("message", "refused")}
        if "data" in params:
            error["data"] = params["data"]
        send({"id": request_id, "error": error})
    elif method == "crash":
        sys.stderr.write("peer: crashing on purpose\n")
        sys.stderr.flush()
        os._exit(params.get("code", 3))
    elif method == "garbage":
        sys.stdout.write("this is { not json\n")
        sys.stdout.flush()
    elif method == "silent":
        sys.stderr.write("peer: staying silent\n")
        sys.stderr.flush()
    elif method == "chatty":
        send({"method": "progress", "params": {"step": 1}})
        send({"id": "srv-1", "method": "approve", "params": {"what": "x"}})
        send({"method": "progress", "params": {"step": 2}})
        reply = read()
        send({"id": request_id, "result": {"client_replied": reply}})
    elif method == "close_stdout":
        sys.stdout.close()
        os.close(1)
    elif method == "last_words":
        sys.stdout.write(json.dumps({"id": request_id, "result": "unterminated"}))
        sys.stdout.close()
        os.close(1)
    elif method == "spawn_child":
        child = subprocess.Popen(["sleep", "300"])
        send({"id": request_id, "result": {"pid": child.pid}})
    elif request_id is not None:
        send({"id": request_id, "error": {"code": -32601, "message": f"unknown method {method}"}})


def main() -> None:
    ignore_term = "--ignore-term" in sys.argv
    if ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if "--greet" in sys.argv:
        send({"method": "hello", "params": {}})
    while (request := read()) is not None:
        handle(request)
    while ignore_term:
        time.sleep(1)


if __name__ == "__main__":
    main()
