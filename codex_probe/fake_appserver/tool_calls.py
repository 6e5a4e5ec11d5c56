"""The function calls of a model response, carried out as the imitated release does.

`exec_command` (the shell tool codex 0.120.0 to 0.171.0 offer) runs the command
(`commands.py`) and reports it as a commandExecution item; its output goes back to the model
as a `function_call_output` in codex's words (`turns.exec_output`). Before it runs,
codex may put it to the client (`turns.command_approval`): the thread is then active and
`waitingOnApproval`, the item starts (source `agent`, no process yet), the client is asked
`item/commandExecution/requestApproval`, `serverRequest/resolved` follows its answer, and a
command the client did not accept completes `declined`, its output codex's rejection. An
accepted escalation runs outside the read-only sandbox (the work folder writable), as codex
runs one; an accepted command that asked for none runs in the sandbox (not measured). A
call of any other tool is answered `unsupported call`, with no item.

The sandbox the fake imitates: a read-only one (sandbox mode `read-only`) lets the command
write nothing; any other mode, or an accepted escalation, lets it write its working folder
only, which is stricter than codex's `danger-full-access`. `cancel` is answered as
`decline` (codex would interrupt the turn: not measured).
"""

from __future__ import annotations

import json
import secrets
import shlex
from collections.abc import Awaitable, Callable
from typing import Any

from codex_probe.fake_appserver.commands import (
    DEADLINE_S,
    YIELD_S,
    CommandResult,
    RunningCommand,
    start_command,
)
from codex_probe.fake_appserver.layout import HistoryEntry
from codex_probe.fake_appserver.profile import Profile
from codex_probe.fake_appserver.threads import LoadedThread
from codex_probe.fake_appserver.wire import Wire, now_ms

Notify = Callable[[str, Any], None]
# Sends the client a request: (method, params) -> (its answer's result, the request id).
Ask = Callable[[str, Any], Awaitable[tuple[Any, Any]]]
Spawn = Callable[[Awaitable[None]], None]
ACCEPTING = ("accept", "acceptForSession")
# Shell words after which a command is more than one program (codex then proposes the
# whole command line as the amendment, else the words of the one program).
_COMPOUND = (";", "&&", "||", "|", "&", "$(", "`", ">", "<")


class ToolCalls:
    def __init__(
        self, profile: Profile, wire: Wire, notify: Notify, ask: Ask, spawn: Spawn
    ) -> None:
        self.profile = profile
        self.wire = wire
        self.notify = notify
        self.ask = ask
        # Runs work that may outlive the turn (the server cancels it when it ends).
        self.spawn = spawn

    async def run(self, thread: LoadedThread, turn: dict[str, Any], call: dict[str, Any]) -> None:
        """Carry out `call` and put its output in the thread's history."""
        texts = self.profile.turns.texts
        name = str(call.get("name"))
        if name != "exec_command":
            self._answer(thread, call, texts.unsupported_call.format(name=name))
            return
        try:
            arguments = json.loads(str(call.get("arguments")))
            if not isinstance(arguments, dict) or not isinstance(arguments.get("cmd"), str):
                raise ValueError("missing field `cmd`")
        except ValueError as error:
            self._answer(thread, call, texts.bad_arguments.format(error=error))
            return
        output = await self._exec(thread, turn, str(call.get("call_id")), arguments)
        self._answer(thread, call, output)

    def abort(self, thread: LoadedThread, call: dict[str, Any]) -> None:
        """A call of a failed response that codex does not run: its output says so."""
        said = self.profile.turns.texts.aborted_output
        self._answer(thread, call, "aborted" if said is None else said)

    def _answer(self, thread: LoadedThread, call: dict[str, Any], output: str) -> None:
        entry: HistoryEntry = {
            "kind": "tool",
            "item": {
                "type": "function_call_output",
                "call_id": call.get("call_id"),
                "output": output,
            },
        }
        thread.record["history"].append(entry)

    async def _exec(
        self, thread: LoadedThread, turn: dict[str, Any], call_id: str, arguments: dict[str, Any]
    ) -> str:
        texts = self.profile.turns.texts
        command = str(arguments["cmd"])
        cwd = str(arguments.get("workdir") or thread.record["cwd"])
        item: dict[str, Any] = {
            "type": "commandExecution",
            "id": call_id,
            "command": texts.command_line.format(command=shlex.quote(command)),
            "cwd": cwd,
            "processId": None,
            "source": "agent",
            "status": "inProgress",
            "commandActions": [{"type": "unknown", "command": command}],
            "aggregatedOutput": None,
            "exitCode": None,
            "durationMs": None,
            "started_ms": now_ms(),
        }
        escalated = arguments.get("sandbox_permissions") == "require_escalated"
        waits = _yield_s(arguments.get("yield_time_ms"))
        writable: list[str] = [] if thread.sandbox_mode == "read-only" else [cwd]
        if self._asks(thread, command, escalated):
            decision = await self._approval(thread, turn, item, arguments)
            if decision not in ACCEPTING:
                item["status"] = "declined"
                self._complete(thread, turn, item)
                self._status(thread)
                return texts.declined_output.format(command_line=item["command"])
            self._status(thread)
            if escalated:  # codex runs an accepted escalation outside its sandbox
                writable = [cwd]
            running = await start_command(command, cwd, writable=writable)
        else:
            running = await start_command(command, cwd, writable=writable)
            item.update(processId=str(running.pid), source="unifiedExecStartup")
            self._report("started", thread, turn, item)
        item.update(processId=str(running.pid), source="unifiedExecStartup")
        result = await running.wait(waits)
        if result.exit_code is None:
            # Measured: the call is answered, the command runs on; its item completes
            # when it ends, after the turn if need be.
            self.spawn(self._complete_later(thread, turn, item, running))
            return self._said(result, texts.running_output, session_id=result.pid)
        self._finish(thread, turn, item, result)
        exited = self.profile.turns.exec_output.value
        return self._said(result, exited, exit_code=result.exit_code)

    def _asks(self, thread: LoadedThread, command: str, escalated: bool) -> bool:
        rule = self.profile.turns.command_approval.value
        known_safe = self.profile.turns.known_safe_commands.value
        words = command.split()
        if words and words[0] in known_safe and not _compound(command):
            return False
        policy = thread.approval_policy
        return policy in rule.asks_for_every_command or (
            escalated and policy in rule.asks_when_escalated
        )

    async def _approval(
        self,
        thread: LoadedThread,
        turn: dict[str, Any],
        item: dict[str, Any],
        arguments: dict[str, Any],
    ) -> Any:
        """Put the command to the client; its decision."""
        self._status(thread, "waitingOnApproval")
        self._report("started", thread, turn, item)
        command = str(arguments["cmd"])
        words = ["/bin/bash", "-lc", command] if _compound(command) else shlex.split(command)
        params: dict[str, Any] = dict(self.wire.template("command_approval_request"))
        values = {
            "threadId": thread.id,
            "turnId": turn["id"],
            "itemId": item["id"],
            "startedAtMs": now_ms(),
            "command": item["command"],
            "cwd": item["cwd"],
            "commandActions": item["commandActions"],
            "proposedExecpolicyAmendment": words,
            "availableDecisions": [
                "accept",
                {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": words}},
                "cancel",
            ],
        }
        params.update({k: v for k, v in values.items() if k in params})
        params.pop("reason", None)
        if arguments.get("justification"):
            params["reason"] = str(arguments["justification"])
        answer, request_id = await self.ask("item/commandExecution/requestApproval", params)
        self.notify("serverRequest/resolved", {"threadId": thread.id, "requestId": request_id})
        decision = answer.get("decision") if isinstance(answer, dict) else None
        return decision if isinstance(decision, str) else "decline"

    async def _complete_later(
        self,
        thread: LoadedThread,
        turn: dict[str, Any],
        item: dict[str, Any],
        running: RunningCommand,
    ) -> None:
        self._finish(thread, turn, item, await running.finish())

    def _finish(
        self,
        thread: LoadedThread,
        turn: dict[str, Any],
        item: dict[str, Any],
        result: CommandResult,
    ) -> None:
        item.update(
            status="completed" if result.exit_code == 0 else "failed",
            aggregatedOutput=result.output,
            exitCode=result.exit_code,
            durationMs=int(result.wall_s * 1000),
        )
        self._complete(thread, turn, item)

    def _said(self, result: CommandResult, template: str, **values: Any) -> str:
        """The call's output in codex's words."""
        return template.format(
            chunk_id=secrets.token_hex(3),
            wall_time=result.wall_s,
            tokens=-(-len(result.output.encode()) // 4),
            output=result.output,
            **values,
        )

    def _complete(self, thread: LoadedThread, turn: dict[str, Any], item: dict[str, Any]) -> None:
        item["completed_ms"] = now_ms()
        turn["items"].append(item)
        self._report("completed", thread, turn, item)

    def _report(
        self, phase: str, thread: LoadedThread, turn: dict[str, Any], item: dict[str, Any]
    ) -> None:
        self.notify(f"item/{phase}", self.wire.item_params(phase, item, thread.id, turn["id"]))

    def _status(self, thread: LoadedThread, *flags: str) -> None:
        status = self.wire.status("active", *flags)
        self.notify("thread/status/changed", {"threadId": thread.id, "status": status})


def _yield_s(value: Any) -> float:
    """How long a call waits for its command: its `yield_time_ms`, else the default."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return min(float(value) / 1000, DEADLINE_S)
    return YIELD_S


def _compound(command: str) -> bool:
    return any(mark in command for mark in _COMPOUND)
