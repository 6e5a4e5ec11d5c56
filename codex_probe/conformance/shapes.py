"""The shapes of the refusals the driver classifies: a JSON-RPC code and a message regex.

The driver's fallback (at most one fresh thread, only on an explicit invalid or
not-found) reads code and message, so a check compares both: the code exactly,
the message against a regex whose `{name}` holes are filled with the escaped
values of this exchange (a thread id, a turn id). Texts measured on 0.120.0 and
0.171.0 (docs/observations/, codex_probe/fake_appserver/profiles/).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from codex_probe.harness.jsonrpc.errors import ServerError

INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601


@dataclass(frozen=True)
class ErrorShape:
    name: str
    codes: tuple[int, ...]
    pattern: str

    def regex(self, **values: str) -> re.Pattern[str]:
        return re.compile(self.pattern.format(**{k: re.escape(v) for k, v in values.items()}))

    def describe(self, **values: str) -> str:
        codes = " or ".join(str(code) for code in self.codes)
        return f"{self.name}: code {codes}, message matching {self.regex(**values).pattern!r}"


NOT_INITIALIZED = ErrorShape("not initialized", (INVALID_REQUEST,), r"^Not initialized$")
ALREADY_INITIALIZED = ErrorShape(
    "already initialized", (INVALID_REQUEST,), r"^Already initialized$"
)
THREAD_NOT_FOUND = ErrorShape(
    "thread not found", (INVALID_REQUEST,), r"^thread not found: {thread_id}$"
)
NO_ROLLOUT = ErrorShape(
    "no rollout", (INVALID_REQUEST,), r"^no rollout found for thread id {thread_id}$"
)
# 0.120.0 says "thread", 0.171.0 "session"; the driver accepts both.
INVALID_THREAD_ID = ErrorShape(
    "invalid thread id", (INVALID_REQUEST,), r"^invalid (session|thread) id: \S"
)
NO_ACTIVE_TURN_TO_STEER = ErrorShape(
    "no active turn to steer", (INVALID_REQUEST,), r"^no active turn to steer$"
)
WRONG_ACTIVE_TURN = ErrorShape(
    "another turn is active",
    (INVALID_REQUEST,),
    r"^expected active turn id `{expected}` but found `{actual}`$",
)
NO_ACTIVE_TURN_TO_INTERRUPT = ErrorShape(
    "no active turn to interrupt", (INVALID_REQUEST,), r"^no active turn to interrupt$"
)
UNKNOWN_METHOD = ErrorShape(
    "unknown method",
    (INVALID_REQUEST,),
    r"^Invalid request: unknown variant `{method}`, expected one of `",
)
# 0.120.0: -32600 "... is not materialized yet; ..."; 0.171.0: -32601 "list_turns ...".
TURNS_BEFORE_FIRST_TURN = ErrorShape(
    "no turns to read yet",
    (INVALID_REQUEST, METHOD_NOT_FOUND),
    r"^(thread {thread_id} is not materialized yet; includeTurns is unavailable before "
    r"first user message|list_turns is not supported yet)$",
)
# 0.120.0 closes an unsubscribed thread asynchronously and says so when resumed meanwhile.
THREAD_CLOSING = ErrorShape(
    "thread closing",
    (INVALID_REQUEST,),
    r"^thread {thread_id} is closing; retry thread/resume after the thread is closed$",
)


def matches(error: ServerError, shape: ErrorShape, **values: str) -> bool:
    return error.code in shape.codes and shape.regex(**values).search(error.message) is not None


def check_refusal(error: ServerError, shape: ErrorShape, **values: str) -> None:
    """Raise AssertionError naming both sides when `error` does not have `shape`."""
    if not matches(error, shape, **values):
        raise AssertionError(
            f"{error.method} was refused with the wrong shape:\n"
            f"  expected {shape.describe(**values)}\n"
            f"  got      code {error.code}, message {error.message[:500]!r}"
        )


async def expect_refusal(answer: Awaitable[Any], shape: ErrorShape, **values: str) -> ServerError:
    """Await a request that must be refused with `shape`; return the refusal.

    A result instead of a refusal fails; a transport error propagates as itself,
    so the failure names the real reason (timeout, exit, malformed frame).
    """
    try:
        result = await answer
    except ServerError as error:
        check_refusal(error, shape, **values)
        return error
    shown = json.dumps(result)[:500]
    raise AssertionError(f"expected a refusal ({shape.describe(**values)}), got result {shown}")
