"""The fault campaign's runner: one schedule on the fake, the reference driver through it.

`run_example` spawns the fake app-server (profile and fault script from the
schedule) on an isolated home with a wiretap as its model provider, drives the
reference driver through `prepare_initial_thread` and the schedule's later
messages (`encode_stdin_message`, `deliver`, the continuation inbox, `settle`), shuts
the fake down and returns a Run: the driver's log and Delivery records, the JSON-RPC
transcript (what the fake got), the model requests the wiretap captured and whatever
of the fake's process outlived it. invariants.py judges it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import time
import traceback
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codex_probe.fake_appserver.launcher import write_launcher
from codex_probe.harness.codex.appserver import open_app_server
from codex_probe.harness.dispatcher import StartConfig
from codex_probe.harness.driver import (
    CodexAppServerDriver,
    Delivery,
    DeliveryOutcomeUnknown,
    InitialThread,
    PrepareFailed,
    SentRequest,
    SettleFailed,
    TurnRequest,
    drive_once,
    sandbox_settings,
    settle,
)
from codex_probe.harness.jsonrpc.errors import TransportError
from codex_probe.harness.jsonrpc.transcript import Transcript, TranscriptEntry
from codex_probe.rig.captures import CapturedRequest, item_type
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.replies import exec_command
from codex_probe.rig.wiretap import Reply, Responder, Wiretap
from tests.driver.schedules import MALFORMED_SESSION_ID, MISSING_SESSION_ID, Schedule

# Short deadlines keep a hang cheap; a spurious timeout on a slow machine only turns a
# path into "outcome unknown", which the rules must survive as well.
REQUEST_TIMEOUT = 0.4
TURN_WAIT = 0.75  # a later message waiting for its boundary
SETTLE_TIMEOUT = 1.0  # the final settle (held bodies delivered at the boundary)
HOPELESS_SETTLE = 0.1  # the final settle when the campaign knows the turn never ends
# Deadlines on events that only come late on a loaded machine (the fake's start, the whole
# example) are long: a wait may take longer there, never fail (load average 18-44 failed
# two examples at 15 s and 60 s).
HANDSHAKE_TIMEOUT = 120.0
CLOSE_GRACE = 1.0
EXAMPLE_DEADLINE = 300.0  # the whole example, shutdown excluded

BASE = "CAMPAIGN-BASE: you are the probe agent; never leak the marker."
DEVELOPER = "CAMPAIGN-DEVELOPER: answer in one line."
FRESH_PROMPT = "CAMPAIGN-FRESH-PROMPT: the reference manual\n\nand the first input"
RESUME_PROMPT = "CAMPAIGN-RESUME-PROMPT: wake up"
SEED_PROMPT = "CAMPAIGN-SEED-PROMPT: the earlier process's first turn"
TURN_METHODS = ("turn/start", "turn/steer")
# The command of a tool-call turn, and how long a held answer waits: past every deadline
# of the example; closing the wiretap at its end cuts it short.
TOOL_COMMAND = "echo CAMPAIGN-TOOL-OUTPUT"
HELD_ANSWER_S = 2 * EXAMPLE_DEADLINE


def model_replies(schedule: Schedule) -> Responder:
    """How the wiretap answers each model request of the example (schedule.model): a text
    answer; or a call of exec_command whenever the request does not end with a call's
    output, and the answer (held past every deadline for tool_call_then_held) when it does."""
    answer = Reply(text="ok", delay_s=schedule.answer_delay)
    if schedule.model == "text":
        return lambda _: answer
    call = Reply(items=(exec_command(TOOL_COMMAND),), delay_s=schedule.answer_delay)
    after_call = answer
    if schedule.model == "tool_call_then_held":
        after_call = Reply(text="held", delay_s=HELD_ANSWER_S)

    def respond(request: CapturedRequest) -> Reply:
        items = request.input_items()
        ends_with_output = bool(items) and item_type(items[-1]) == "function_call_output"
        return after_call if ends_with_output else call

    return respond


def campaign_config(schedule: Schedule, session_id: str, work_dir: str) -> StartConfig:
    return StartConfig(
        agent_id="campaign-agent",
        base_instructions=BASE,
        developer_instructions="  \n" if schedule.blank_developer else DEVELOPER,
        fresh_prompt=FRESH_PROMPT,
        resume_prompt=RESUME_PROMPT,
        session_id=session_id,
        work_dir=work_dir,
        permission_mode="agent_workspace_write",
    )


# ----- seeded threads: "a thread of an earlier process" ---------------------------------


@dataclass(frozen=True)
class SeededThread:
    thread_id: str
    sessions: Path  # the seed home's CODEX_HOME/sessions, copied into each example's home


class Seeds:
    """One thread per profile, made once by an unfaulted fake and reused by copy."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._made: dict[str, SeededThread] = {}

    async def thread(self, profile: str) -> SeededThread:
        if profile not in self._made:
            self._made[profile] = await self._make(profile)
        return self._made[profile]

    async def _make(self, profile: str) -> SeededThread:
        folder = self.folder / f"seed-{profile}"
        launcher = write_launcher(folder / "bin", profile=profile)
        async with Wiretap() as tap:
            with IsolatedHome(tap.base_url, parent_dir=folder) as home:
                config = StartConfig(
                    agent_id="seed-agent",
                    base_instructions="SEED-BASE",
                    developer_instructions="SEED-DEVELOPER",
                    fresh_prompt=SEED_PROMPT,
                    work_dir=str(home.workdir),
                    permission_mode="agent_workspace_write",
                )
                result = await drive_once(
                    launcher,
                    config,
                    env=home.env(),
                    cwd=home.workdir,
                    request_timeout=HANDSHAKE_TIMEOUT,
                    turn_timeout=HANDSHAKE_TIMEOUT,
                )
                sessions = folder / "sessions"
                shutil.copytree(home.codex_home / "sessions", sessions)
        return SeededThread(result.initial.thread_id, sessions)


# ----- one run -------------------------------------------------------------------------


@dataclass
class Run:
    """Everything one example did and saw."""

    schedule: Schedule
    config: StartConfig | None = None
    initial: InitialThread | None = None
    prepare_failure: PrepareFailed | None = None
    requests: list[SentRequest] = field(default_factory=list)  # the driver's log
    # Every Delivery record the driver returned or raised, per body, in order.
    reports: dict[str, list[Delivery]] = field(default_factory=lambda: defaultdict(list))
    attempted: list[str] = field(default_factory=list)  # later bodies handed to the driver
    encoded: list[tuple[str, TurnRequest | None]] = field(default_factory=list)
    held_at_end: list[str] = field(default_factory=list)
    transcript: list[TranscriptEntry] = field(default_factory=list)
    model_requests: list[dict[str, Any]] = field(default_factory=list)
    pid: int | None = None
    left_behind: str = ""  # what of the fake's process outlived the example
    unexpected: str = ""  # a traceback the driver (or the campaign) should not have raised
    trace: list[str] = field(default_factory=list)
    # Turns whose completion the campaign will not see again: taken by the race, or
    # waited for in vain (a turn that never completes). Nobody waits for them twice.
    unwaitable: set[str] = field(default_factory=set)
    started: float = field(default_factory=time.monotonic)

    def note(self, line: str) -> None:
        self.trace.append(f"{time.monotonic() - self.started:5.2f}s {line}")

    def report(self, delivery: Delivery) -> None:
        self.reports[delivery.body].append(delivery)
        self.note(f"  {delivery.body[:24]!r}: {delivery.status.value} via {delivery.method}")


DriverFactory = type[CodexAppServerDriver]


def run_example(
    schedule: Schedule,
    folder: Path,
    seeds: Seeds,
    *,
    driver_class: DriverFactory = CodexAppServerDriver,
    request_timeout: float = REQUEST_TIMEOUT,
) -> Run:
    """Run one schedule in its own event loop; the fake is gone when this returns.
    `request_timeout` is the driver's: short for the campaign, so that a hang is cheap."""
    run = Run(schedule)
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "schedule.jsonl"
    script.write_text(schedule.to_jsonl(), encoding="utf-8")
    launcher = write_launcher(folder / "bin", profile=schedule.profile, script=script)
    asyncio.run(
        _run_catching(schedule, launcher, folder, seeds, driver_class, request_timeout, run)
    )
    return run


async def _run_catching(
    schedule: Schedule,
    launcher: Path,
    folder: Path,
    seeds: Seeds,
    driver_class: DriverFactory,
    request_timeout: float,
    run: Run,
) -> None:
    try:
        await _run(schedule, launcher, folder, seeds, driver_class, request_timeout, run)
    except Exception:
        run.unexpected = traceback.format_exc()


async def _run(
    schedule: Schedule,
    launcher: Path,
    folder: Path,
    seeds: Seeds,
    driver_class: DriverFactory,
    request_timeout: float,
    run: Run,
) -> None:
    session_id = {
        "none": "",
        "missing": MISSING_SESSION_ID,
        "malformed": MALFORMED_SESSION_ID,
    }.get(schedule.session)
    seeded = None
    if session_id is None:
        seeded = await seeds.thread(schedule.profile)
        session_id = seeded.thread_id
    transcript = Transcript()
    async with Wiretap(responder=model_replies(schedule)) as tap:
        with IsolatedHome(tap.base_url, parent_dir=folder) as home:
            if seeded is not None:
                shutil.copytree(seeded.sessions, home.codex_home / "sessions")
            config = campaign_config(schedule, session_id, str(home.workdir))
            run.config = config
            settings = sandbox_settings(config.permission_mode, config.work_dir)
            client, _ = await open_app_server(
                launcher,
                env=home.env(),
                cwd=home.workdir,
                config_overrides=[settings.config_override],
                transcript=transcript,
                timeout=HANDSHAKE_TIMEOUT,
            )
            run.pid = client.server.pid
            run.note(f"fake {schedule.profile} started (pid {run.pid})")
            try:
                driver = driver_class(client, request_timeout=request_timeout)
                try:
                    async with asyncio.timeout(EXAMPLE_DEADLINE):
                        await _drive(schedule, driver, config, run)
                finally:
                    run.requests = list(driver.requests)
            finally:
                await client.close(grace=CLOSE_GRACE)
                run.note(f"fake closed (exit code {client.returncode})")
                run.transcript = list(transcript.entries)
                run.left_behind = _left_behind(run.pid)
        run.model_requests = [r.body for r in tap.model_requests() if isinstance(r.body, dict)]
    run.note("wiretap closed")


async def _drive(
    schedule: Schedule, driver: CodexAppServerDriver, config: StartConfig, run: Run
) -> None:
    try:
        initial = await driver.prepare_initial_thread(config)
    except PrepareFailed as failure:
        run.initial, run.prepare_failure = failure.record, failure
        run.note(f"prepare failed (outcome known: {failure.outcome_known}): {failure}")
        return
    run.initial = initial
    thread_id = initial.thread_id
    run.note(f"prepare: {initial.path} on {thread_id}, sent {initial.methods}")
    for index, message in enumerate(schedule.messages):
        body = schedule.body(index)
        run.note(f"message {index} ({message.when}{', blank' if message.blank else ''})")
        await _reach(message.when, driver, thread_id, run)
        request = driver.encode_stdin_message(thread_id, body)
        run.encoded.append((body, request))
        run.attempted.append(body)
        try:
            run.report(await driver.deliver(thread_id, body))
        except DeliveryOutcomeUnknown as unknown:
            for delivery in unknown.deliveries:
                run.report(delivery)
    # A turn whose completion will not come makes settle wait its whole deadline.
    hopeless = driver.active_turn(thread_id) in run.unwaitable
    run.note("settle" + (" (its turn will not complete)" if hopeless else ""))
    try:
        _, delivered = await settle(
            driver, thread_id, timeout=HOPELESS_SETTLE if hopeless else SETTLE_TIMEOUT
        )
    except SettleFailed as stopped:
        run.note(f"  settle stopped: {stopped.__cause__}")
        delivered = stopped.deliveries
    for delivery in delivered:
        run.report(delivery)
    run.held_at_end = [held.body for held in driver.inbox.pending(thread_id)]


async def _reach(when: str, driver: CodexAppServerDriver, thread_id: str, run: Run) -> None:
    active = driver.active_turn(thread_id)
    if when == "now" or active in run.unwaitable:
        return
    if active is None:
        if when == "after_turn":
            await _deliver_held(driver, thread_id, run)
        return
    run.unwaitable.add(active)  # unless the boundary below is reached
    if when == "race":
        # Someone else takes the completion: the driver still believes the turn active.
        try:
            await driver.client.wait_for_notification(
                "turn/completed",
                lambda note: turn_id(note.params) == active,
                timeout=TURN_WAIT,
            )
        except TransportError as error:
            run.note(f"  race: {error.summary}")
        return
    try:
        await driver.wait_for_turn_completed(thread_id, timeout=TURN_WAIT)
    except TransportError as error:
        run.note(f"  boundary: {error.summary}")
    if driver.active_turn(thread_id) is None:
        run.unwaitable.discard(active)
        await _deliver_held(driver, thread_id, run)


async def _deliver_held(driver: CodexAppServerDriver, thread_id: str, run: Run) -> None:
    try:
        delivered = await driver.deliver_held(thread_id)
    except DeliveryOutcomeUnknown as unknown:
        delivered = unknown.deliveries
    for delivery in delivered:
        run.report(delivery)


def turn_id(params: Any) -> Any:
    turn = params.get("turn") if isinstance(params, dict) else None
    return turn.get("id") if isinstance(turn, dict) else None


def _left_behind(pid: int) -> str:
    """What is left of the fake's process and its group; killed, so it does not linger."""
    found = []
    state = _proc_state(pid)
    if state is not None:
        found.append(f"process {pid} still exists (state {state})")
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        pass
    except PermissionError:
        found.append(f"process group {pid} still has members (not ours to signal)")
    else:
        found.append(f"process group {pid} still has members")
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
    return "; ".join(found)


def _proc_state(pid: int) -> str | None:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return "not ours"
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("State:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return "unknown"
