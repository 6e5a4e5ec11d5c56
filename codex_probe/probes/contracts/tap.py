"""The `codex` a recorded client runs: it starts the real codex-cli and copies every line
both ways, writing each to a log as it passes.

`codex-probe record` puts a script named `codex` first on the client's PATH (and its path
in $CODEX_PROBE_CODEX) that runs this file as a script: `python -I -S tap.py CONFIG
ARGS...`. CONFIG (JSON, written by record.py) names the real binary, the seal's command
(codex runs sealed, in the recording's own home, with the wiretap as its model), the
environment and folder codex runs with, and the folder for the logs. An app-server run
(`ARGS` holding `app-server` with no subcommand after it) is tapped: one log per process,
`TIME-PID.jsonl`, a line `{"from": "client"|"codex", "line": TEXT}` per message, and its
stderr beside it. Anything else (`--version`, `app-server generate-json-schema`) is the
real binary, run as asked.

Standard library only: it starts once per app-server the client starts.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any, BinaryIO

SUBCOMMAND_FLAGS = ("-", "--")


def serves(args: list[str]) -> bool:
    """Whether `codex ARGS` runs the app-server (not one of its subcommands)."""
    if "app-server" not in args:
        return False
    after = args[args.index("app-server") + 1 :]
    return not after or after[0].startswith(SUBCOMMAND_FLAGS)


def command(config: dict[str, Any], args: list[str], parent: int) -> list[str]:
    argv = [config["binary"], *args]
    if not config.get("seal"):
        return argv
    return [*config["seal"], "--parent", str(parent), "--", *argv]


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: tap.py CONFIG ARGS...", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as file:
        config = json.load(file)
    args = argv[2:]
    env = dict(config["env"])
    if not serves(args):
        os.execve(config["binary"], [config["binary"], *args], env)
    name = f"{time.time_ns()}-{os.getpid()}"
    log_path = os.path.join(config["log_dir"], name + ".jsonl")
    with open(os.path.join(config["log_dir"], name + ".stderr"), "wb") as stderr:
        process = subprocess.Popen(
            command(config, args, os.getpid()),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env,
            cwd=config["cwd"],
        )
    # The client ending us ends codex: it was the client's to end.
    signal.signal(signal.SIGTERM, lambda *_: process.terminate())
    lock = threading.Lock()
    with open(log_path, "a", encoding="utf-8") as log:
        log.write(json.dumps({"args": args}) + "\n")

        def record(side: str, line: bytes) -> None:
            text = line.decode("utf-8", "replace").rstrip("\n")
            with lock:
                log.write(json.dumps({"from": side, "line": text}) + "\n")
                log.flush()

        def to_codex(source: BinaryIO, sink: BinaryIO) -> None:
            try:
                for line in source:
                    record("client", line)
                    sink.write(line)
                    sink.flush()
            except (BrokenPipeError, ValueError):
                pass
            finally:
                with contextlib.suppress(OSError):
                    sink.close()

        assert process.stdin is not None and process.stdout is not None
        threading.Thread(
            target=to_codex, args=(sys.stdin.buffer, process.stdin), daemon=True
        ).start()
        try:
            for line in process.stdout:
                record("codex", line)
                sys.stdout.buffer.write(line)
                sys.stdout.buffer.flush()
        except BrokenPipeError:
            process.terminate()
        return process.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
