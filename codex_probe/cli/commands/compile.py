"""`codex-probe compile`: compile sources for one lifecycle event and show the result.

Prints the StartConfig the dispatcher would hand the driver, the instruction
fingerprint to store with a new session, and the resume decision for a stored one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from codex_probe.harness.command_line import USAGE_ERROR
from codex_probe.harness.compiler import (
    CompileError,
    LifecycleEvent,
    SourcesError,
    UnknownEventError,
    load_sources,
    parse_event,
)
from codex_probe.harness.dispatcher import (
    ResumeDecision,
    Runtime,
    SessionRecord,
    StartConfig,
    UnknownRuntimeError,
    build_start_config,
    parse_runtime,
    runtime_policy,
    thread_contract_fingerprint,
    validate_session_resume,
)

TEXT_FIELDS = (
    "base_instructions",
    "developer_instructions",
    "fresh_prompt",
    "resume_prompt",
    "prompt",
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compile",
        help="compile prompt sources into a StartConfig",
        description="Compile a sources folder for one lifecycle event, as the dispatcher "
        "would: print the StartConfig, the instruction fingerprint, and whether a stored "
        "session would be resumed, with the reason.",
    )
    parser.add_argument(
        "--sources",
        type=Path,
        metavar="DIR",
        help="sources folder (default: the packaged default sources)",
    )
    events = ", ".join(event.value for event in LifecycleEvent)
    parser.add_argument("--event", required=True, help=f"lifecycle event: {events}")
    parser.add_argument(
        "--session-id", default="", metavar="ID", help="stored session id to resume"
    )
    parser.add_argument(
        "--fingerprint",
        default="",
        metavar="FP",
        help="instruction fingerprint stored with that session (none: a legacy session)",
    )
    runtimes = "|".join(runtime.value for runtime in Runtime)
    parser.add_argument(
        "--runtime",
        default=Runtime.CODEX.value,
        metavar=runtimes,
        help="runtime to compile for (default: codex)",
    )
    parser.add_argument(
        "--session-runtime",
        default="",
        metavar=runtimes,
        help="runtime that created the stored session (default: --runtime)",
    )
    parser.add_argument("--message", default="", help="the message this turn delivers")
    parser.add_argument(
        "--work-dir",
        default="",
        metavar="DIR",
        help="agent working directory (default: the current directory)",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        report = _compile(args)
    except (UnknownRuntimeError, UnknownEventError, SourcesError, CompileError) as error:
        print(f"codex-probe compile: {error}", file=sys.stderr)
        return USAGE_ERROR
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        _print_human(report)
    return 0


def _compile(args: argparse.Namespace) -> dict[str, Any]:
    runtime = parse_runtime(args.runtime)
    session_runtime = parse_runtime(args.session_runtime or args.runtime)
    event = parse_event(args.event)
    sources = load_sources(args.sources)
    fingerprint = thread_contract_fingerprint(sources)
    record = None
    if args.session_id:
        record = SessionRecord(
            session_id=args.session_id,
            runtime_policy=runtime_policy(session_runtime),
            instruction_fingerprint=args.fingerprint,
        )
    decision = validate_session_resume(record, runtime=runtime, fingerprint=fingerprint)
    config = build_start_config(
        sources,
        event=event,
        runtime=runtime,
        session_id=decision.session_id,
        message=args.message,
        work_dir=args.work_dir or str(Path.cwd()),
    )
    return {
        "runtime": runtime.value,
        "event": event.value,
        "sources": sources.location,
        "fingerprint": fingerprint,
        "resume": _decision_report(args.session_id, decision),
        "start_config": config.to_json_dict(),
    }


def _decision_report(stored_session_id: str, decision: ResumeDecision) -> dict[str, Any]:
    return {
        "stored_session_id": stored_session_id,
        "session_id": decision.session_id,
        "kept": decision.kept,
        "reason": decision.reason.value,
        "detail": decision.detail,
    }


def _print_human(report: dict[str, Any]) -> None:
    resume = report["resume"]
    print(f"runtime: {report['runtime']}  event: {report['event']}  sources: {report['sources']}")
    print(f"fingerprint: {report['fingerprint']}")
    print(f"resume: {resume['reason']}: {resume['detail']}")
    config: dict[str, Any] = report["start_config"]
    print("start_config:")
    for name in StartConfig.__dataclass_fields__:
        if name not in TEXT_FIELDS:
            value = config[name]
            shown = value if isinstance(value, str) else json.dumps(value)
            print(f"  {name}: {shown}")
    for name in TEXT_FIELDS:
        text: str = config[name]
        print(f"--- {name} ({len(text)} chars) ---")
        print(text if text else "(empty)")
