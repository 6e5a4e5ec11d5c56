"""How a session answers the requests codex sends its client: approvals and the like.

codex asks its client before it runs a command outside the sandbox, changes files, grants
permissions, asks the user a question, calls a client-side (dynamic) tool, or relays an
MCP server's elicitation (the `server request` methods of each release's schema,
`codex-probe schema --codex VERSION --json`). A scenario says per method what the client
answers; a method it says nothing about gets the default below, which lets codex go on
without granting anything: approvals are declined (codex continues the turn; `cancel`
would interrupt it), questions get no answers, a dynamic tool call fails, an elicitation
is declined.

Some server requests get no default (`WITHOUT_DEFAULT` says why); a scenario that needs
one answers it itself, else it gets the client's "no handler" error, as any method
without an answer does.

Every server request and its answer are in the session's transcript (both directions),
and in `AnswerPolicy.answered` in the order they came.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

# What lets codex go on without granting anything, per server request method.
DEFAULT_ANSWERS: dict[str, Any] = {
    "item/commandExecution/requestApproval": {"decision": "decline"},
    "item/fileChange/requestApproval": {"decision": "decline"},
    # No permission granted, for this turn only.
    "item/permissions/requestApproval": {"permissions": {}, "scope": "turn"},
    "item/tool/requestUserInput": {"answers": {}},
    "item/tool/call": {"contentItems": [], "success": False},
    "mcpServer/elicitation/request": {"action": "decline"},
}
# Server requests of 0.120.0 to 0.171.0 without a default answer, and why.
WITHOUT_DEFAULT = {
    "account/chatgptAuthTokens/refresh": "the rig's homes hold no ChatGPT login to refresh",
    "attestation/generate": "a test client has no attestation to give",
    # The v1 approvals go to v1 conversations, which the rig never opens.
    "execCommandApproval": "v1 only; its 'denied' is a string in 0.120.0, an object from 0.150.0",
    "applyPatchApproval": "v1 only; its 'denied' is a string in 0.120.0, an object from 0.150.0",
}

# A fixed result, or a function of the request's params that returns one.
Answer: TypeAlias = Any
AnswerFunction: TypeAlias = Callable[[Any], Any]


@dataclass(frozen=True)
class Answered:
    """One server request the session answered, and with what."""

    method: str
    params: Any
    result: Any
    process: int  # the index of the session's process that asked
    at: float  # time.monotonic()


@dataclass
class AnswerPolicy:
    """The answer to each server request method: the scenario's, else the default."""

    answers: dict[str, Answer] = field(default_factory=dict)
    answered: list[Answered] = field(default_factory=list)

    def methods(self) -> list[str]:
        """Every method this policy answers."""
        return sorted({*DEFAULT_ANSWERS, *self.answers})

    def answer_for(self, method: str, params: Any) -> Any:
        given = self.answers.get(method, DEFAULT_ANSWERS.get(method))
        result = given(params) if callable(given) else given
        return copy.deepcopy(result)

    def handler(self, method: str, process: int) -> Callable[[Any], Awaitable[Any]]:
        """The client handler that answers `method` for the session's process `process`."""

        async def answer(params: Any) -> Any:
            result = self.answer_for(method, params)
            self.answered.append(Answered(method, params, result, process, time.monotonic()))
            return result

        return answer
