"""Programs a test fork server runs (harness/forks): `main(argv)` does what argv[0] names."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence


def main(argv: Sequence[str]) -> int | None:
    action, *rest = argv
    if action == "report":  # what the child is and sees, as one JSON line on stdout
        print(
            json.dumps(
                {
                    "pid": os.getpid(),
                    "session_leader": os.getsid(0) == os.getpid(),
                    "group_leader": os.getpgid(0) == os.getpid(),
                    "cwd": os.getcwd(),
                    "env": dict(os.environ),
                    "argv": sys.argv,
                    "exists": {path: os.path.lexists(path) for path in rest},
                    "stdin": sys.stdin.readline(),
                }
            ),
            flush=True,
        )
        print("to stderr", file=sys.stderr, flush=True)
        return 0
    if action == "exit":
        return int(rest[0])
    if action == "raise":
        raise ValueError("raised on purpose")
    if action == "stand-in":  # says its pid into the FIFO rest[0], then runs until killed
        with open(rest[0], "w") as fifo:
            fifo.write(f"{os.getpid()}\n")
        time.sleep(600)
        return 0
    if action == "echo":  # every line of stdin back on stdout until stdin ends
        for line in sys.stdin:
            sys.stdout.write(line)
            sys.stdout.flush()
        return 0
    raise SystemExit(f"no action {action!r}")
