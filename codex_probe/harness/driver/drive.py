"""One agent session end to end over one app-server process: spawn, prepare, settle, stop.

`drive_once` takes a StartConfig the dispatcher built (sources compiled, prompts
chosen) and a binary (the real codex or the fake: same command line), and returns
what happened. The process it starts is shut down before it returns or raises.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.appserver import open_app_server
from codex_probe.harness.dispatcher import StartConfig
from codex_probe.harness.driver.codex import DEFAULT_REQUEST_TIMEOUT, CodexAppServerDriver
from codex_probe.harness.driver.records import (
    Delivery,
    DeliveryOutcomeUnknown,
    InitialThread,
    SettleFailed,
)
from codex_probe.harness.driver.sandbox import sandbox_settings
from codex_probe.harness.jsonrpc.errors import TransportError
from codex_probe.harness.jsonrpc.transcript import Transcript

DEFAULT_TURN_TIMEOUT = 120.0


@dataclass
class DriveResult:
    initial: InitialThread
    # turn/completed params of every turn waited for, in order.
    completed_turns: list[dict[str, Any]] = field(default_factory=list)
    # Held bodies delivered at a boundary while settling.
    later_deliveries: list[Delivery] = field(default_factory=list)
    returncode: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            **self.initial.to_json(),
            "completed_turns": [
                {"id": turn.get("turn", {}).get("id"), "status": turn.get("turn", {}).get("status")}
                for turn in self.completed_turns
            ],
            "later_deliveries": [delivery.to_json() for delivery in self.later_deliveries],
            "returncode": self.returncode,
        }


class DriveSettleFailed(SettleFailed):
    """drive_once's turns did not end (settle stopped) after the thread was prepared.

    `result` keeps what the session did up to then: the initial record (path, requests,
    thread id, the delivery of the first message), the turns that completed, the held
    bodies sent while settling and the process's exit code.
    """

    def __init__(self, result: DriveResult, cause: Exception) -> None:
        super().__init__(result.completed_turns, result.later_deliveries, cause)
        self.result = result


async def settle(
    driver: CodexAppServerDriver, thread_id: str, *, timeout: float
) -> tuple[list[dict[str, Any]], list[Delivery]]:
    """Wait until the thread has no active turn and nothing held, delivering held
    bodies at each turn boundary. One deadline covers the whole wait.

    A transport failure (the deadline, a lost server) raises SettleFailed, which carries
    the held bodies sent so far: once taken from the inbox, a body is always reported.
    """
    deadline = time.monotonic() + timeout
    completed: list[dict[str, Any]] = []
    delivered: list[Delivery] = []
    try:
        while driver.active_turn(thread_id) is not None or driver.inbox.pending(thread_id):
            if driver.active_turn(thread_id) is None:
                delivered += await driver.deliver_held(thread_id)
                continue
            note = await driver.wait_for_turn_completed(
                thread_id, timeout=max(deadline - time.monotonic(), 0.0)
            )
            completed.append(note.params)
            delivered += await driver.deliver_held(thread_id)
    except DeliveryOutcomeUnknown as error:
        raise SettleFailed(completed, [*delivered, *error.deliveries], error) from error
    except TransportError as error:
        raise SettleFailed(completed, delivered, error) from error
    return completed, delivered


async def drive_once(
    binary: Path | str,
    config: StartConfig,
    *,
    env: Mapping[str, str],
    cwd: Path | None = None,
    transcript: Transcript | None = None,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    turn_timeout: float = DEFAULT_TURN_TIMEOUT,
) -> DriveResult:
    """Spawn `binary app-server`, prepare the config's thread, wait for its turns to end.

    Raises SandboxConfigError before spawning, PrepareFailed (with its record) when
    preparing fails, DriveSettleFailed (a SettleFailed with the session's result so
    far, the initial record included) when its turns do not end; the process is ended
    either way.
    """
    settings = sandbox_settings(config.permission_mode, config.work_dir)
    client, _ = await open_app_server(
        binary,
        env=env,
        cwd=cwd,
        config_overrides=[settings.config_override],
        transcript=transcript,
    )
    stopped: SettleFailed | None = None
    async with client:
        driver = CodexAppServerDriver(client, request_timeout=request_timeout, sandbox=settings)
        initial = await driver.prepare_initial_thread(config)
        try:
            completed, later = await settle(driver, initial.thread_id, timeout=turn_timeout)
        except SettleFailed as error:
            stopped = error
            completed, later = error.completed, error.deliveries
    result = DriveResult(initial, completed, later, client.returncode)
    if stopped is not None:
        # Raised once the process has ended, so the result has its exit code.
        cause = stopped.__cause__ if isinstance(stopped.__cause__, Exception) else stopped
        raise DriveSettleFailed(result, cause) from cause
    return result
