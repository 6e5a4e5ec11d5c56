"""`codex-probe record`: run a client with a `codex` of ours first on its PATH, and make its
contract from what passed between it and the real codex-cli.

The client runs in the recording's work folder (a fresh one), with the environment
harness/child_env.py's CLIENT list allows and: PATH with the tap's folder first, HOME the
recording's own, CODEX_PROBE_CODEX the tap's `codex` (for a client that takes a binary
path). Every app-server it starts is the real release, sealed, in the same isolated home,
its model the wiretap (rig/wiretap.py: the same deterministic replies a replay gets).
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codex_probe.harness.child_env import CLIENT, child_env, search_path
from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.codex.schema_shapes import MethodShape, load_shapes
from codex_probe.harness.codex.seal import seal_launch
from codex_probe.harness.parent_death import bound_to_this_process
from codex_probe.harness.temp_folders import temporary_folder
from codex_probe.harness.tool import TOOL
from codex_probe.probes.contracts import tap
from codex_probe.probes.contracts.contract import (
    FORMAT,
    HOME,
    WORK,
    Contract,
    Interaction,
    Kind,
    Process,
    Refusal,
)
from codex_probe.probes.contracts.messages import (
    enum_values,
    ids_of,
    merged_shape,
    replaced,
)
from codex_probe.probes.domain.surface.shape import shape
from codex_probe.probes.domain.surface.wire import in_lifecycle, notification_label
from codex_probe.probes.domain.timing import CHUNKS
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.wiretap import Wiretap

CODEX_VARIABLE = "CODEX_PROBE_CODEX"
CLIENT_TIMEOUT = 600.0
END_GRACE = 5.0


class RecordError(RuntimeError):
    """The client could not be run, or left nothing to make a contract of."""


@dataclass
class Recording:
    contract: Contract
    returncode: int  # the client's
    output_tail: str  # the end of what the client printed


async def record_client(
    installation: Installation,
    command: Sequence[str],
    *,
    timeout: float = CLIENT_TIMEOUT,
) -> Recording:
    """Run `command` against `installation` and return the contract it made."""
    schema = load_shapes(await asyncio.to_thread(ensure_schema, installation))
    async with Wiretap() as wiretap:
        with IsolatedHome(wiretap.base_url) as home, temporary_folder("record") as scratch:
            shim = _write_shim(scratch, installation, home)
            env = child_env(
                CLIENT,
                {
                    "PATH": f"{shim.parent}{os.pathsep}{search_path()}",
                    "HOME": str(home.home),
                    CODEX_VARIABLE: str(shim),
                },
            )
            returncode, output = await _run_client(list(command), env, home.workdir, timeout)
            logs = sorted((scratch / "logs").glob("*.jsonl"))
            places = {str(home.workdir): WORK, str(home.home): HOME}
            processes = [_process(_read_log(log), schema, places) for log in logs]
    if not processes:
        raise RecordError(
            f"the client started no codex app-server (exit {returncode}); it must run "
            f"`codex app-server` from its PATH or ${CODEX_VARIABLE}. Its output ends: "
            f"{_one_line(output)}"
        )
    contract = Contract(
        format=FORMAT,
        tool=TOOL,
        recorded_on=installation.version,
        recorded_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        command=list(command),
        processes=processes,
    )
    return Recording(contract, returncode, output)


def _write_shim(scratch: Path, installation: Installation, home: IsolatedHome) -> Path:
    """The `codex` the client finds: tap.py with its config, in a folder of its own."""
    (scratch / "bin").mkdir()
    (scratch / "logs").mkdir()
    wrapped, _ = seal_launch(["codex"], cwd=home.workdir)
    seal = None
    if wrapped != ["codex"]:
        seal = wrapped[: wrapped.index("--")]
        if "--parent" in seal:  # the tap names itself: it starts codex
            at = seal.index("--parent")
            del seal[at : at + 2]
    config = {
        "binary": str(installation.binary),
        "seal": seal,
        "env": home.env(),
        "cwd": str(home.workdir),
        "log_dir": str(scratch / "logs"),
    }
    (scratch / "tap.json").write_text(json.dumps(config), encoding="utf-8")
    shim = scratch / "bin" / "codex"
    python = shlex.quote(sys.executable)
    script = shlex.quote(tap.__file__)
    shim.write_text(
        f'#!/bin/sh\nexec {python} -I -S {script} {shlex.quote(str(scratch / "tap.json"))} "$@"\n'
    )
    shim.chmod(0o755)
    return shim


async def _run_client(
    command: list[str], env: dict[str, str], cwd: Path, timeout: float
) -> tuple[int, str]:
    """Run the client to its end (or its deadline, then end it); its exit and output."""
    if shutil.which(command[0], path=env["PATH"]) is None:
        raise RecordError(f"cannot run {command[0]}: no such program (or not executable)")
    try:
        process = await asyncio.create_subprocess_exec(
            *bound_to_this_process(command),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
    except OSError as error:
        raise RecordError(f"cannot run {command[0]}: {error.strerror or error}") from None
    try:
        async with asyncio.timeout(timeout):
            output, _ = await process.communicate()
    except TimeoutError:
        await _end(process)
        raise RecordError(
            f"the client ran past its deadline of {timeout:.0f} s and was ended"
        ) from None
    finally:
        if process.returncode is None:
            await _end(process)
    return process.returncode or 0, output.decode("utf-8", "replace")[-4000:]


async def _end(process: asyncio.subprocess.Process) -> None:
    """SIGTERM the client's group, then SIGKILL what is left of it."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            async with asyncio.timeout(END_GRACE):
                await process.wait()
            return
        except TimeoutError:
            continue


def _read_log(path: Path) -> list[dict[str, Any]]:
    lines = []
    for text in path.read_text(encoding="utf-8").splitlines():
        try:
            lines.append(json.loads(text))
        except json.JSONDecodeError:
            continue  # a line cut by a killed tap: what came before it stands
    return lines


def _process(
    log: list[dict[str, Any]],
    schema: dict[str, dict[str, MethodShape]],
    places: dict[str, str],
) -> Process:
    """One app-server's log as the client's interactions."""
    args = next((entry["args"] for entry in log if "args" in entry), ["app-server"])
    interactions: list[Interaction] = []
    pending: dict[Any, Interaction] = {}
    asked: dict[Any, tuple[str, Any]] = {}  # codex's requests of the client, by id
    current: Interaction | None = None  # the client's last request
    for entry in log:
        if "from" not in entry:
            continue
        try:
            message = json.loads(entry["line"])
        except json.JSONDecodeError:
            continue
        if not isinstance(message, dict):
            continue
        if entry["from"] == "client":
            if "method" in message:
                kind: Kind = "request" if "id" in message else "notification"
                method = str(message["method"])
                params = replaced(message.get("params"), places)
                fields = schema.get(f"client {kind}", {}).get(method)
                interaction = Interaction(
                    kind=kind,
                    method=method,
                    params=params,
                    sent=shape(params),
                    enum_values=enum_values(params, fields.params if fields else None),
                    outcome="unanswered" if kind == "request" else "none",
                )
                interactions.append(interaction)
                if kind == "request":
                    pending[message["id"]] = current = interaction
            elif "id" in message and message["id"] in asked:
                method, params = asked.pop(message["id"])
                result = replaced(message.get("result"), places)
                fields = schema.get("server request", {}).get(method)
                interactions.append(
                    Interaction(
                        kind="answer",
                        method=method,
                        sent=shape(result),
                        enum_values=enum_values(result, fields.response if fields else None),
                        received=shape(params),
                        ids=ids_of(params),
                        answer=result,
                    )
                )
            continue
        if "method" in message and "id" in message:
            asked[message["id"]] = (str(message["method"]), message.get("params"))
        elif "method" in message:
            method = str(message["method"])
            if current is None or method in CHUNKS or not in_lifecycle(method):
                continue
            label = notification_label(message)
            current.notifications.append(label)
            params = message.get("params")
            current.notification_shapes[label] = merged_shape(
                current.notification_shapes.get(label), params
            )
            current.notification_ids.setdefault(label, ids_of(params))
        elif "id" in message and message["id"] in pending:
            answered = pending.pop(message["id"])
            if isinstance(message.get("error"), dict):
                error = message["error"]
                answered.outcome = "refused"
                code = error.get("code")
                answered.refusal = Refusal(
                    code if isinstance(code, int) else None, str(error.get("message", ""))
                )
            else:
                answered.outcome = "answered"
                answered.received = shape(message.get("result"))
                answered.ids = ids_of(message.get("result"))
    return Process([str(a) for a in args], interactions)


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat[-limit:]
