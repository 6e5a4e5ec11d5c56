"""`codex-probe drive`: one message through compiler, dispatcher and driver, on a backend.

Compiles the sources, builds the StartConfig (event fresh_start without a session id,
wake with one), starts the backend's app-server in an isolated home whose model
provider is the wiretap, prepares the thread, delivers the message, waits for the
turn to end, and prints what happened: the path (fresh, resume, fallback), the
methods sent, the thread id and where the transcript is.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import install_failures_end_command
from codex_probe.cli.commands.options import (
    add_fake_profile_option,
    codex_version,
    versions_of_profile,
)
from codex_probe.cli.commands.output import output_problem
from codex_probe.cli.commands.run_folders import REPORTS
from codex_probe.fake_appserver.launcher import write_launcher
from codex_probe.fake_appserver.profile import ProfileError, load_profile
from codex_probe.harness.codex.install import install as install_codex
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.harness.command_line import FAILED, USAGE_ERROR
from codex_probe.harness.compiler import (
    CompileError,
    LifecycleEvent,
    Sources,
    SourcesError,
    load_sources,
)
from codex_probe.harness.dispatcher import StartConfig, build_start_config
from codex_probe.harness.driver import (
    DriverError,
    DriveResult,
    PermissionMode,
    PrepareFailed,
    SandboxConfigError,
    drive_once,
    parse_permission_mode,
)
from codex_probe.harness.driver.drive import DriveSettleFailed
from codex_probe.harness.interrupts import run_interruptible
from codex_probe.harness.jsonrpc.errors import JsonRpcError
from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.harness.temp_folders import temporary_folder
from codex_probe.rig.captures import CapturedRequest, item_type
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.replies import Reply, exec_command
from codex_probe.rig.wiretap import Responder, Wiretap

BACKENDS = ("real", "fake")
# What the model does in each turn (--reply): answer; call exec_command, then answer once
# the call's output is back; or call it, then hold the answer past --turn-timeout, so the
# turn never completes (the wiretap lets it go when the drive ends).
REPLIES = ("text", "tool-call", "held")
TOOL_COMMAND = "echo CODEX-PROBE-DRIVE-TOOL"
# A held answer's own limit: far past any turn timeout; closing the wiretap cuts it short.
HELD_ANSWER_S = 24 * 3600.0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "drive",
        help="deliver one message through the reference driver on a backend",
        description="Compile the sources, prepare a thread on the backend's app-server "
        "(fresh, or resume --session-id with at most one fallback) and deliver --message; "
        "print the path taken, the methods sent, the thread id and the transcript.",
    )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        required=True,
        help="the app-server to drive: the real codex-cli, or the fake imitating it",
    )
    parser.add_argument(
        "--codex",
        type=codex_version,
        metavar="VERSION",
        help="codex-cli version (real) or profile (fake); default: the release the "
        f"--fake-profile imitates, else {DEFAULT_CODEX_VERSION}",
    )
    add_fake_profile_option(parser)
    parser.add_argument(
        "--sources",
        type=Path,
        metavar="DIR",
        help="sources folder (default: the packaged default sources)",
    )
    parser.add_argument(
        "--session-id",
        default="",
        metavar="ID",
        help="thread id to resume (unknown ids take the fallback path)",
    )
    modes = "|".join(mode.value for mode in PermissionMode)
    parser.add_argument(
        "--permission-mode",
        default="",
        metavar=modes,
        help="agent permissionMode (default: the sources' agent config)",
    )
    parser.add_argument("--message", required=True, help="the message to deliver")
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        default=REPORTS / "drive",
        help="output folder; the transcript goes under OUT/drive/",
    )
    parser.add_argument(
        "--turn-timeout",
        type=positive_seconds,
        default=120.0,
        metavar="SECONDS",
        help="how long the turns may take to end (default: 120)",
    )
    parser.add_argument(
        "--reply",
        choices=REPLIES,
        default="text",
        help="what the model does in each turn: text answers (default); tool-call calls "
        "exec_command, then answers once its output is back; held calls it, then never "
        "answers, so the turn does not complete before --turn-timeout",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    parser.set_defaults(handler=run)


def model_replies(kind: str) -> Responder | None:
    """The wiretap's answers for --reply `kind` (None: its default text answers)."""
    if kind == "text":
        return None
    call = Reply(items=(exec_command(TOOL_COMMAND),))
    after_call = Reply(text="done") if kind == "tool-call" else Reply(delay_s=HELD_ANSWER_S)

    def respond(request: CapturedRequest) -> Reply:
        items = request.input_items()
        ends_with_output = bool(items) and item_type(items[-1]) == "function_call_output"
        return after_call if ends_with_output else call

    return respond


def positive_seconds(text: str) -> float:
    """A finite number of seconds above 0 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive, finite number of seconds")
    return value


class OutError(ValueError):
    """--out cannot take the transcript; the message names the path and why."""


def run(args: argparse.Namespace) -> int:
    if args.fake_profile is not None and args.backend != "fake":
        return _usage("--fake-profile needs --backend fake")
    try:
        [args.codex] = versions_of_profile([args.codex] if args.codex else [], args.fake_profile)
    except ProfileError as error:
        return _usage(error)
    try:
        sources = load_sources(args.sources)
        # Checked before anything is installed, spawned or written.
        parse_permission_mode(args.permission_mode or sources.agent.permission_mode)
        transcript_path = _transcript_target(args.out, _transcript_name(args))
    except (SourcesError, CompileError, SandboxConfigError, OutError) as error:
        return _usage(error)
    with temporary_folder("drive") as scratch:
        try:
            with install_failures_end_command(FAILED, unknown_version_exit_code=USAGE_ERROR):
                binary = _backend_binary(args.backend, args.codex, scratch, args.fake_profile)
        except ProfileError as error:
            return _usage(error)
        return _run_on(binary, sources, args, transcript_path)


def _stamp() -> str:
    return f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"


def _transcript_name(args: argparse.Namespace) -> str:
    return f"transcript-{args.backend}-{args.codex}-{_stamp()}.jsonl"


def _transcript_target(out: Path, name: str) -> Path:
    """OUT/drive/NAME, once it is sure it can be written there; nothing is created yet."""
    problem = output_problem(out, under="drive")
    if problem is not None:
        raise OutError(problem)
    path = (out / "drive" / name).resolve()
    if path.is_dir():
        raise OutError(f"--out {out}: the transcript {path} would replace a folder")
    return path


def _run_on(binary: Path, sources: Sources, args: argparse.Namespace, transcript_path: Path) -> int:
    try:
        transcript_path.parent.mkdir(parents=True, exist_ok=True)
        transcript_path.unlink(missing_ok=True)
    except OSError as error:  # changed since it was checked
        return _usage(f"--out {args.out}: cannot write {transcript_path}: {error.strerror}")
    report: dict[str, Any] = {
        "backend": args.backend,
        "codex": args.codex,
        "reply": args.reply,
        "transcript": str(transcript_path),
    }
    try:
        result, model_requests = run_interruptible(
            lambda: _drive(binary, sources, args, Transcript(path=transcript_path))
        )
    except SandboxConfigError as error:
        return _usage(error)
    except PrepareFailed as error:
        report.update(error.record.to_json(), error=str(error))
        _show(report, args.json, failed=True)
        return FAILED
    except DriveSettleFailed as error:  # the thread was prepared; its turn did not end
        report.update(error.result.to_json(), error=str(error))
        _show(report, args.json, failed=True)
        return FAILED
    except (JsonRpcError, DriverError) as error:  # e.g. a turn that never ended
        report.update(error=str(error))
        _show(report, args.json, failed=True)
        return FAILED
    report.update(result.to_json(), model_requests=model_requests)
    _show(report, args.json, failed=False)
    return 0


def _backend_binary(backend: str, version: str, scratch: Path, profile: Path | None) -> Path:
    if backend == "real":
        return install_codex(version).binary
    if profile is not None:  # loaded already: versions_of_profile
        return write_launcher(scratch, profile=str(profile.resolve()))
    load_profile(version)  # an unknown profile fails here, not inside the spawned fake
    return write_launcher(scratch, profile=version)


async def _drive(
    binary: Path, sources: Sources, args: argparse.Namespace, transcript: Transcript
) -> tuple[DriveResult, int]:
    async with Wiretap(responder=model_replies(args.reply)) as tap:
        with IsolatedHome(tap.base_url) as home:
            config = _start_config(sources, args, str(home.workdir))
            result = await drive_once(
                binary,
                config,
                env=home.env(),
                cwd=home.workdir,
                transcript=transcript,
                turn_timeout=args.turn_timeout,
            )
        return result, len(tap.model_requests())


def _start_config(sources: Sources, args: argparse.Namespace, work_dir: str) -> StartConfig:
    # The dispatcher's resume policy is not consulted: the id given is the one to try.
    event = LifecycleEvent.WAKE if args.session_id.strip() else LifecycleEvent.FRESH_START
    return build_start_config(
        sources,
        event=event,
        session_id=args.session_id,
        message=args.message,
        work_dir=work_dir,
        permission_mode=args.permission_mode,
    )


def _usage(error: Exception | str) -> int:
    print(f"codex-probe drive: {error}", file=sys.stderr)
    return USAGE_ERROR


def _show(report: dict[str, Any], as_json: bool, *, failed: bool) -> None:
    if as_json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return
    backend = f"{report['backend']} (codex-cli {report['codex']})"
    print(f"backend: {backend}, model replies: {report['reply']}")
    if "path" in report:
        print(f"path: {report['path']}")
        reason = report.get("fallback_reason")
        if reason:
            print(
                f"fallback reason: {reason['method']} refused ({reason['code']}: "
                f"{reason['message']})"
            )
        print(f"methods sent: {', '.join(report['methods']) or '(none)'}")
        print(f"thread id: {report['thread_id'] or '(none)'}")
        for request in report["requests"]:
            if request["method"] == "thread/start":
                print(f"thread/start params: {_summarize(request['params'])}")
        delivery = report.get("delivery")
        if delivery:
            print(
                f"delivery: {delivery['status']} via {delivery['method'] or '-'} "
                f"(turn {delivery['turn_id'] or '-'})"
            )
    for turn in report.get("completed_turns", []):
        print(f"turn {turn['id']}: {turn['status']}")
    if "model_requests" in report:
        print(f"model requests seen by the wiretap: {report['model_requests']}")
    print(f"transcript: {report['transcript']}")
    if failed:
        print(f"codex-probe drive: FAILED: {report['error']}", file=sys.stderr)


def _summarize(params: dict[str, Any]) -> str:
    parts = []
    for key, value in params.items():
        shown = f"({len(value)} chars)" if key.endswith("Instructions") else json.dumps(value)
        parts.append(f"{key}={shown}")
    return ", ".join(parts)
