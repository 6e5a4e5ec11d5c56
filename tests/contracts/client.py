"""A small app-server client of the standard library alone, for `codex-probe record` to
run: it starts `codex app-server` from its PATH (or $CODEX_PROBE_CODEX with --by-variable),
starts a thread with the approval policy given (a value of an enum the schema names), runs
one turn and waits for it to complete.

    python client.py [--policy on-failure] [--by-variable] [--method METHOD]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any


class Client:
    def __init__(self, codex: str) -> None:
        self.process = subprocess.Popen(
            [codex, "app-server", "--listen", "stdio://"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise EOFError("codex closed its stdout")
        found: dict[str, Any] = json.loads(line)
        return found

    def request(self, method: str, params: Any) -> dict[str, Any]:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            message = self.read()
            if message.get("id") == self.next_id and "method" not in message:
                return message

    def wait_for(self, method: str) -> dict[str, Any]:
        while True:
            message = self.read()
            if message.get("method") == method:
                return message

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--policy", default="never")
    parser.add_argument("--by-variable", action="store_true")
    parser.add_argument("--method", default="thread/start")
    args = parser.parse_args()
    codex = os.environ["CODEX_PROBE_CODEX"] if args.by_variable else "codex"
    client = Client(codex)
    client.request("initialize", {"clientInfo": {"name": "test-client", "version": "1"}})
    client.send({"method": "initialized"})
    started = client.request(args.method, {"approvalPolicy": args.policy, "cwd": os.getcwd()})
    if "error" in started:
        print("refused:", started["error"].get("message"))
        client.close()
        return 1
    thread = started["result"]["thread"]["id"]
    client.request("turn/start", {"threadId": thread, "input": [{"type": "text", "text": "hi"}]})
    client.wait_for("turn/completed")
    client.close()
    print("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
