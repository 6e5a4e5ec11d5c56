"""The `turns` section of a profile (codex_probe/fake_appserver/turn_profile.py), learned from the
tool-call and turn-kinds scenarios.

What each entry reads: the turn-kinds scenario's two calls codex cannot carry out, its
stream cut off after reasoning, a message and a call (and the turn after it), its failed
and dropped streams, its escalated and untrusted commands (declined); the tool-call
scenario's command, which outlives its call.

Two values are never inferred, and keep the nearest checked-in profile's, `measured:
false`: the output of a command that ends within its call (`exec_output`) and the commands
codex runs without asking (`known_safe_commands`, such as 0.120.0's escalated echo). Both
need a command that ends within its call, and on 0.120.0 such a command races codex's first
read of it, which now and then loses its item/completed (docs/observations/real-turns.md):
a scenario that ran one would make the fake's fidelity rest on a race.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from typing import Any

from codex_probe.fake_appserver.turn_profile import (
    CallInFailedResponse,
    CommandApproval,
    CompletedTurnItems,
    StreamFailure,
)
from codex_probe.probes.domain.reading import call_outputs, dig
from codex_probe.probes.releases.learn.observed import Gap, Inexpressible, Inferred, Observed
from codex_probe.probes.runner.scenarios import (
    BAD_ARGUMENTS,
    TOOL_CALL,
    UNKNOWN_TOOL,
)
from codex_probe.rig.replies import Reply

KINDS = "turn-kinds"
# Why the two values no scenario shows are kept (the evidence of each).
NOT_INFERRED = {
    "known_safe_commands": "no scenario runs a command that codex could run without asking",
    "exec_output": "no scenario runs a command that ends within its call",
}
NOT_INFERRED_WHY = (
    "on 0.120.0 such a command races codex's first read of it and loses its item/completed "
    "now and then, so no fidelity may rest on one"
)


def _gap(
    field: str, step: str, observed: str, missing: str, scenario: str = KINDS
) -> Inexpressible:
    return Inexpressible(Gap(field, scenario, step, observed[:600], missing))


def _received(seen: Observed, label: str, field: str, scenario: str = KINDS) -> list[Any]:
    view = seen.observation(scenario, field)
    seen.step(scenario, label, field)
    return [m for m in view.messages(label, "recv") if isinstance(m, dict)]


def _completed(seen: Observed, label: str, field: str) -> dict[str, Any]:
    """The turn of the step's turn/completed."""
    turn = dig(seen.step(KINDS, label, field)["result"], ["turn/completed", "turn"])
    if not isinstance(turn, dict):
        raise _gap(field, label, "the turn sent no turn/completed", "a turn that completes")
    return turn


def _outputs(seen: Observed, label: str, field: str, scenario: str = KINDS) -> list[str]:
    """The function call outputs the step's last model request sends back, in order."""
    return call_outputs(seen.request(scenario, label, field).body)


def _literal(text: str) -> str:
    """A text as a str.format template that says it as it is."""
    return text.replace("{", "{{").replace("}", "}}")


# ----- the measured entries ----------------------------------------------------------


def stream_failure(seen: Observed) -> Inferred[StreamFailure]:
    field = "turns.stream_failure"
    turn = _completed(seen, "turn-cut", field)
    if turn.get("status") != "failed":
        raise _gap(field, "turn-cut", f"the turn ended {turn.get('status')}", "a turn that fails")
    cut = _received(seen, "turn-cut", field)
    statuses = [
        str(dig(m, ["params", "status", "type"]))
        for m in cut
        if m.get("method") == "thread/status/changed"
    ]
    notified_error = any(m.get("method") == "error" and "id" not in m for m in cut)
    after = seen.request(KINDS, "turn-after-cut", field)
    kinds = [item.get("type") for item in after.items]
    kept_reasoning = "reasoning" in kinds
    kept_message = bool(after.locate("PARTIAL"))
    if kept_reasoning != kept_message:
        raise _gap(
            field,
            "turn-after-cut",
            f"of what the cut stream streamed the next request keeps {after.describe()}",
            "a StreamFailure that keeps some streamed items and not others",
        )
    outputs = _outputs(seen, "turn-after-cut", field)
    said = unsupported_call(seen).format(name=UNKNOWN_TOOL)
    if len(outputs) < 3:  # the two unrunnable calls of turn-calls, then the cut stream's
        raise _gap(field, "turn-after-cut", f"outputs {outputs}", "a call left unanswered")
    call = CallInFailedResponse.EXECUTED if outputs[2] == said else CallInFailedResponse.ABORTED
    value = StreamFailure(
        thread_status=statuses[-1] if statuses else "",
        notifies_error=notified_error,
        keeps_streamed_items=kept_reasoning,
        call_in_failed_response=call,
    )
    if not value.thread_status:
        raise _gap(field, "turn-cut", "no thread status change", "a failure without a status")
    return Inferred(
        value,
        f"turn-kinds turn-cut: a stream cut off: thread {value.thread_status}, "
        f"{'an' if notified_error else 'no'} error notification, turn/completed failed; "
        f"turn-after-cut: {'keeps' if kept_reasoning else 'drops'} the streamed reasoning and "
        f"message; the cut stream's call answered {outputs[2]!r}",
    )


def completed_turn_items(seen: Observed) -> Inferred[CompletedTurnItems]:
    field = "turns.completed_turn_items"
    items = _completed(seen, "turn-after-cut", field).get("items") or []
    kinds = [item.get("type") for item in items if isinstance(item, dict)]
    if kinds == []:
        return Inferred(
            CompletedTurnItems.NONE, "turn-kinds turn-after-cut: turn/completed lists no items"
        )
    if kinds == ["agentMessage"]:
        return Inferred(
            CompletedTurnItems.LAST_AGENT_MESSAGE,
            "turn-kinds turn-after-cut: turn/completed lists the agentMessage only",
        )
    raise _gap(
        field, "turn-after-cut", f"turn/completed lists {kinds}", "a CompletedTurnItems value"
    )


def _asked(seen: Observed, label: str, field: str) -> bool:
    return any(
        m.get("method") == "item/commandExecution/requestApproval" and "id" in m
        for m in _received(seen, label, field)
    )


def command_approval(seen: Observed) -> Inferred[CommandApproval]:
    field = "turns.command_approval"
    escalated, untrusted = (
        _asked(seen, "turn-escalated", field),
        _asked(seen, "turn-untrusted", field),
    )
    value = CommandApproval(
        asks_when_escalated=["on-request"] if escalated else [],
        asks_for_every_command=["untrusted"] if untrusted else [],
    )
    return Inferred(
        value,
        f"turn-kinds turn-escalated: under on-request an escalated touch was "
        f"{'' if escalated else 'not '}put to the client; turn-untrusted: under untrusted a "
        f"plain touch was {'' if untrusted else 'not '}put to it (never: never asked)",
    )


# ----- the texts ----------------------------------------------------------------------


def _tool_command() -> str:
    [call] = TOOL_CALL.function_calls
    command: str = json.loads(call.arguments)["cmd"]
    return command


def _command_item(seen: Observed, field: str) -> dict[str, Any]:
    """The tool-call scenario's commandExecution item, as it completed after its turn."""
    for m in _received(seen, "turn-1", field, "tool-call"):
        item = dig(m, ["params", "item"])
        if m.get("method") == "item/completed" and dig(item, ["type"]) == "commandExecution":
            found: dict[str, Any] = item
            return found
    raise _gap(field, "turn-1", "no commandExecution item completed", "a command", "tool-call")


def command_line(seen: Observed) -> str:
    field = "turns.texts.command_line"
    shown = str(_command_item(seen, field).get("command"))
    quoted = shlex.quote(_tool_command())
    if quoted not in shown:
        raise _gap(
            field, "turn-1", f"the item shows {shown!r}", "a command line without it", "tool-call"
        )
    return _literal(shown).replace(_literal(quoted), "{command}")


# The parts of codex's answer to an exec_command call that change from call to call, by the
# words before them; `{wall_time}` keeps the decimals codex prints.
OUTPUT_PARTS = (
    (re.compile(r"(Chunk ID: )[0-9a-fA-F]+"), r"\1{chunk_id}"),
    (re.compile(r"(Original token count: )\d+"), r"\1{tokens}"),
)
WALL_TIME = re.compile(r"(Wall time: )\d+\.(\d+)")
SESSION = re.compile(r"(Process running with session ID )\d+")


def running_output(seen: Observed) -> str:
    """The answer to a call whose command was still running when it stopped waiting."""
    field = "turns.texts.running_output"
    outputs = _outputs(seen, "turn-1", field, "tool-call")
    if len(outputs) != 1 or "\nOutput:\n" not in outputs[0]:
        raise _gap(
            field,
            "turn-1",
            f"the call's outputs {outputs}",
            "an answer of another layout",
            "tool-call",
        )
    head = _literal(outputs[0].split("\nOutput:\n", 1)[0])
    for pattern, replacement in OUTPUT_PARTS:
        head, found = pattern.subn(replacement, head)
        if found != 1:
            raise _gap(
                field, "turn-1", f"{outputs[0]!r}", f"a part like {pattern.pattern}", "tool-call"
            )
    head, timed = WALL_TIME.subn(lambda m: f"{m[1]}{{wall_time:.{len(m[2])}f}}", head)
    head, sessions = SESSION.subn(r"\1{session_id}", head)
    if (timed, sessions) != (1, 1):
        raise _gap(field, "turn-1", f"{outputs[0]!r}", "a wall time and a session id", "tool-call")
    return head + "\nOutput:\n{output}"


def declined_output(seen: Observed) -> str:
    field = "turns.texts.declined_output"
    outputs = _outputs(seen, "turn-escalated", field)
    if len(outputs) != 1:
        raise _gap(field, "turn-escalated", f"outputs {outputs}", "one output of the call")
    command = next(
        (
            str(dig(m, ["params", "item", "command"]))
            for m in _received(seen, "turn-escalated", field)
            if m.get("method") == "item/started"
            and dig(m, ["params", "item", "type"]) == "commandExecution"
        ),
        None,
    )
    said = _literal(outputs[0])
    return said if command is None else said.replace(_literal(command), "{command_line}")


def aborted_output(seen: Observed) -> str | None:
    """What a call of a failed response is answered with when codex does not run it (None
    where it runs it)."""
    field = "turns.texts.aborted_output"
    failure = stream_failure(seen).value
    if failure.call_in_failed_response is CallInFailedResponse.EXECUTED:
        return None
    return _literal(_outputs(seen, "turn-after-cut", field)[2])


def unsupported_call(seen: Observed) -> str:
    field = "turns.texts.unsupported_call"
    outputs = _outputs(seen, "turn-calls", field)
    if len(outputs) != 2 or UNKNOWN_TOOL not in outputs[0]:
        raise _gap(field, "turn-calls", f"outputs {outputs}", f"an answer without {UNKNOWN_TOOL}")
    return _literal(outputs[0]).replace(UNKNOWN_TOOL, "{name}")


def bad_arguments(seen: Observed) -> str:
    """What a call whose arguments are no JSON object is answered with: codex's words, then
    its parser's, which the fake cannot imitate (its own parser's words go in `{error}`)."""
    field = "turns.texts.bad_arguments"
    outputs = _outputs(seen, "turn-calls", field)
    said = outputs[1] if len(outputs) == 2 else ""
    if ": " not in said:
        raise _gap(field, "turn-calls", f"arguments {BAD_ARGUMENTS!r} answered {said!r}", "{error}")
    return _literal(said.split(": ", 1)[0]) + ": {error}"


def _turn_error(seen: Observed, label: str, field: str) -> str:
    turn = _completed(seen, label, field)
    message = dig(turn, ["error", "message"])
    if turn.get("status") != "failed" or not isinstance(message, str):
        raise _gap(field, label, f"the turn ended {turn.get('status')}", "a turn that fails")
    return message


def failed_stream(seen: Observed) -> str:
    field = "turns.texts.failed_stream"
    message = _turn_error(seen, "turn-failed", field)
    scripted = Reply().error_message
    if scripted not in message:
        raise _gap(field, "turn-failed", f"the turn's error {message!r}", f"{scripted!r} in it")
    return _literal(message).replace(_literal(scripted), "{message}")


def _verbatim(label: str, field: str) -> Callable[[Observed], str]:
    return lambda seen: _literal(_turn_error(seen, label, field))


# The measured entries of the section, in the model's order (the two never inferred aside).
TURN_INFERENCES: dict[str, Callable[[Observed], Inferred[Any]]] = {
    "stream_failure": stream_failure,
    "completed_turn_items": completed_turn_items,
    "command_approval": command_approval,
}
# The section's texts, in the model's order.
TURN_TEXT_INFERENCES: dict[str, Callable[[Observed], Any]] = {
    "command_line": command_line,
    "running_output": running_output,
    "declined_output": declined_output,
    "aborted_output": aborted_output,
    "unsupported_call": unsupported_call,
    "bad_arguments": bad_arguments,
    "failed_stream": failed_stream,
    "cut_stream": _verbatim("turn-cut", "turns.texts.cut_stream"),
    "dropped_stream": _verbatim("turn-dropped", "turns.texts.dropped_stream"),
}


def kept_reason(name: str) -> str:
    return f"not learned: {NOT_INFERRED[name]} ({NOT_INFERRED_WHY})"
