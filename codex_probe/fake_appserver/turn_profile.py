"""The `turns` section of a profile: what a release does with a turn that is more than text.

A model reply can be reasoning, several messages, a function call codex runs in its
sandbox, or a stream that fails or is cut (`rig/replies.py` scripts them all). What the
app-server sends for each, and what the next model request then carries, is measured on
the real release (docs/observations/real-turns.md); this section is how a profile says it.

Its wire shapes (the commandExecution and reasoning items, the `error` notification, the
approval request) are optional templates of the wire file (`TURN_TEMPLATES`).

`codex-probe learn` infers the section from the tool-call and turn-kinds scenarios
(`codex_probe/probes/releases/learn/turns.py`), but for two values no scenario can show without a
race (`known_safe_commands`, `exec_output`: see there), which it keeps from the nearest checked-in
profile, `measured: false`. A profile file without the section (`turns: null`, as learned before it
was inferred) borrows it and the templates from the nearest checked-in profile, every entry then
`measured: false` (`profile.load_profile`).
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

from codex_probe.fake_appserver.profile_model import Measured, Model

T = TypeVar("T")

# The wire templates of this section, optional in a wire file (see the module).
TURN_TEMPLATES = (
    "item_commandExecution",
    "item_reasoning",
    "error_notification",
    "command_approval_request",
)


class CallInFailedResponse(StrEnum):
    """What codex does with a function call of a response whose stream then fails."""

    # Not run, no item; the next request carries the call with the output `aborted` (0.120.0).
    ABORTED = "aborted"
    # Run as in a completed response: its items, and its output in the next request
    # (0.150.0, 0.171.0).
    EXECUTED = "executed"


class CompletedTurnItems(StrEnum):
    """The items turn/completed lists for a turn that completed."""

    NONE = "none"  # always [] (0.120.0)
    # The last agentMessage of the turn only (`itemsView: summary`); a failed turn lists
    # none (`itemsView: notLoaded`) (0.150.0, 0.171.0).
    LAST_AGENT_MESSAGE = "last_agent_message"


class StreamFailure(Model, frozen=True):
    """A model stream that ends in `response.failed`, without `response.completed`, or cut
    off mid-body: codex retries nothing (the rig's providers allow no retries)."""

    # The thread's status when the turn fails (then `active` again with the next turn).
    thread_status: str
    # An `error` notification (willRetry false) comes before turn/completed.
    notifies_error: bool
    # Output items done before the failure stay in the history the next turn sends.
    keeps_streamed_items: bool
    call_in_failed_response: CallInFailedResponse


class CommandApproval(Model, frozen=True):
    """When codex asks its client before it runs an exec_command call (the commands it runs
    without asking all the same are Turns.known_safe_commands)."""

    # Approval policies under which a call asking `sandbox_permissions: require_escalated`
    # is put to the client.
    asks_when_escalated: list[str]
    # Approval policies under which every command is put to the client.
    asks_for_every_command: list[str]


class TurnTexts(Model, frozen=True):
    """codex's own texts of a tool-call turn (str.format templates, fields named)."""

    # The command line a commandExecution item shows: {command} is shell-quoted.
    command_line: str
    # The function_call_output of a command still running when the call stopped waiting:
    # {chunk_id} {wall_time} {session_id} {tokens} {output} (of one that ended within its
    # call: Turns.exec_output).
    running_output: str
    # ...of a command the client declined: {command_line}.
    declined_output: str
    # ...of a call in a failed response that was not run (CallInFailedResponse.ABORTED);
    # null where the release runs such a call.
    aborted_output: str | None
    # ...of a call of a tool codex does not have: {name}.
    unsupported_call: str
    # ...of a call whose arguments are no JSON object: {error}.
    bad_arguments: str
    # The turn's error message for `response.failed`: {message}.
    failed_stream: str
    # ...for a stream that ends without response.completed.
    cut_stream: str
    # ...for a connection closed mid-body.
    dropped_stream: str


class Turns(Model, frozen=True):
    stream_failure: Measured[StreamFailure]
    completed_turn_items: Measured[CompletedTurnItems]
    command_approval: Measured[CommandApproval]
    # The commands (first word) codex runs without asking even where the approval policy
    # would ask, command_approval aside.
    known_safe_commands: Measured[list[str]]
    # The function_call_output of a command that ended within its call: {chunk_id}
    # {wall_time} {exit_code} {tokens} {output}.
    exec_output: Measured[str]
    texts: TurnTexts


def lent(turns: Turns, lender: str) -> Turns:
    """`turns` as a profile that lacks the section borrows it: nothing of it measured."""
    why = f"not in this profile (learned before learn inferred it): lent by profile {lender}"

    def unmeasured(entry: Measured[T]) -> Measured[T]:
        return Measured(entry.value, False, why)

    return Turns(
        stream_failure=unmeasured(turns.stream_failure),
        completed_turn_items=unmeasured(turns.completed_turn_items),
        command_approval=unmeasured(turns.command_approval),
        known_safe_commands=unmeasured(turns.known_safe_commands),
        exec_output=unmeasured(turns.exec_output),
        texts=turns.texts,
    )
