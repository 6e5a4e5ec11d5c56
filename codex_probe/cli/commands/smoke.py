"""`codex-probe smoke`: install a codex-cli and check the handshake and thread/start on it.

The first thing to run on a new machine: it proves npm, the cache, the schema, the
isolated home, the loopback provider and the JSON-RPC transport work together.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import CommandFailed, install_failures_end_command
from codex_probe.cli.commands.options import add_codex_option, add_json_option
from codex_probe.cli.commands.output import output_problem
from codex_probe.cli.commands.run_folders import REPORTS
from codex_probe.harness.codex.appserver import open_app_server
from codex_probe.harness.codex.install import install
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.codex.transcripts import validate_transcript
from codex_probe.harness.codex.validator import MessageValidator
from codex_probe.harness.command_line import FAILED, USAGE_ERROR
from codex_probe.harness.files import inside
from codex_probe.harness.interrupts import run_interruptible
from codex_probe.harness.jsonrpc.errors import JsonRpcError
from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.wiretap import Wiretap

BASE_MARKER = "codex-probe smoke: base instructions marker"
DEVELOPER_MARKER = "codex-probe smoke: developer instructions marker"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "smoke",
        help="install a codex-cli and run a handshake smoke check against it",
        description="The first thing to run on a new machine. Install codex-cli --codex "
        "from npm into the cache (once) with its protocol schema, start its app-server on an "
        "isolated CODEX_HOME whose model provider is a loopback wiretap, and check the "
        "handshake and a thread/start carrying base and developer instructions. Every "
        "message is validated against the schema; the transcript goes to "
        "OUT/smoke/transcript-VERSION.jsonl. Exit 0 when all of it works.",
    )
    add_codex_option(parser, "the release to check")
    parser.add_argument(
        "--out",
        type=Path,
        default=REPORTS / "smoke",
        metavar="DIR",
        help="output folder: the transcript goes to DIR/smoke/ (default reports/smoke)",
    )
    add_json_option(parser, "what was checked, and whether it worked")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    def say(text: str) -> None:
        line = f"[{time.monotonic() - started:6.2f}s] {text}"
        print(line, flush=True, file=sys.stderr if args.json else sys.stdout)

    started = time.monotonic()
    # Before anything starts: an --out it cannot write is a usage error, not a run that
    # fails once codex has started.
    if problem := output_problem(args.out, under="smoke"):
        raise CommandFailed(problem, USAGE_ERROR)
    with install_failures_end_command(FAILED):
        installation = install(args.codex)
        schema = ensure_schema(installation)
    say(f"codex-cli {installation.version} at {installation.binary}")
    say(f"protocol schema at {schema}")
    transcript_path = inside(args.out, "smoke", f"transcript-{installation.version}.jsonl")
    transcript_path.parent.mkdir(parents=True, exist_ok=True)
    transcript_path.unlink(missing_ok=True)
    transcript = Transcript(path=transcript_path)
    try:
        thread_id = run_interruptible(lambda: _handshake(installation.binary, transcript, say))
    except JsonRpcError as error:
        print(f"codex-probe smoke: FAILED: {error}", file=sys.stderr)
        if args.json:
            print(json.dumps({"version": installation.version, "ok": False, "error": str(error)}))
        return 1
    violations = validate_transcript(MessageValidator(schema), transcript.entries)
    say(
        f"{len(transcript.entries)} messages validated against the schema, "
        f"{len(violations)} violations"
    )
    if not args.json:
        for violation in violations:
            print(f"  {violation}")
    say(f"transcript: {transcript_path}")
    if not violations:
        say(f"OK: handshake and thread/start ({thread_id}) on codex-cli {installation.version}")
    if args.json:
        document = {
            "version": installation.version,
            "ok": not violations,
            "binary": str(installation.binary),
            "schema": str(schema),
            "thread": thread_id,
            "messages": len(transcript.entries),
            "violations": [str(violation) for violation in violations],
            "transcript": str(transcript_path),
        }
        print(json.dumps(document, indent=2))
    return 1 if violations else 0


async def _handshake(binary: Path, transcript: Transcript, say: Any) -> str:
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url) as home:
            say(f"isolated CODEX_HOME {home.codex_home}, model provider {tap.base_url}")
            client, info = await open_app_server(
                binary, env=home.env(), cwd=home.workdir, transcript=transcript
            )
            async with client:
                say(f"initialize -> userAgent {info.get('userAgent') if info else None!r}")
                result = await client.request(
                    "thread/start",
                    {
                        "cwd": str(home.workdir),
                        "baseInstructions": BASE_MARKER,
                        "developerInstructions": DEVELOPER_MARKER,
                    },
                    timeout=60,
                )
                thread_id: str = result["thread"]["id"]
                started = await client.wait_for_notification("thread/started", timeout=30)
                same = started.params["thread"]["id"] == thread_id
                say(
                    f"thread/start -> thread {thread_id}, status {result['thread']['status']}, "
                    f"thread/started {'matches' if same else 'DIFFERS'}"
                )
            say(f"server shut down, exit code {client.returncode}")
    return thread_id
