"""Reading the app-server's explicit refusals: which ones mean "invalid or not found".

Only a `ServerError` is a refusal (the outcome is known); a transport failure never
is. The answers below were measured on codex-cli 0.171.0 (JSON-RPC code -32600,
INVALID_REQUEST, for all of them; the error object has no `data` key, and no message has a
`jsonrpc` key, as an assumption of the probes checks on every release):

  thread/resume, unknown id     "no rollout found for thread id <id>"
    (also a thread started in an earlier process that never had a turn)
  thread/resume, malformed id   "invalid session id: <uuid parse error>"
  turn/start|turn/steer, unknown id    "thread not found: <id>"
  turn/start|turn/steer, malformed id  "invalid thread id: <uuid parse error>"
  turn/steer, turn already over        "no active turn to steer"
  turn/steer, another turn active      "expected active turn id `<x>` but found `<y>`"
  turn/steer, review/compact turn      "cannot steer a review turn" / "... compact turn"
  turn/steer without expectedTurnId    "Invalid request: missing field `expectedTurnId`"

The same code carries unrelated refusals (e.g. "Invalid request: unknown variant
`bogus` ..." for a bad sandbox), so a match needs the code and the message.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import TypeVar

from codex_probe.harness.jsonrpc.errors import ServerError

INVALID_REQUEST = -32600


class ThreadRefusal(StrEnum):
    NOT_FOUND = "not_found"
    INVALID = "invalid"


class SteerRefusal(StrEnum):
    NO_ACTIVE_TURN = "no_active_turn"  # the turn ended: start a new one now
    OTHER_TURN_ACTIVE = "other_turn_active"  # hold the body until that turn is over
    NOT_STEERABLE = "not_steerable"  # likewise


Reading = TypeVar("Reading", ThreadRefusal, SteerRefusal)

# How each refusal (code INVALID_REQUEST) is read: the first pattern that matches the
# message from its start decides. Data, so a reproduction bundle can carry the same rules.
THREAD_RULES: tuple[tuple[str, ThreadRefusal], ...] = (
    (r"^no rollout found for thread id ", ThreadRefusal.NOT_FOUND),
    (r"^thread not found: ", ThreadRefusal.NOT_FOUND),
    (r"^invalid session id: ", ThreadRefusal.INVALID),
    (r"^invalid thread id: ", ThreadRefusal.INVALID),
)
_TURN_MISMATCH = r"^expected active turn id `[^`]*` but found `([^`]*)`$"
STEER_RULES: tuple[tuple[str, SteerRefusal], ...] = (
    (r"^no active turn to steer$", SteerRefusal.NO_ACTIVE_TURN),
    (_TURN_MISMATCH, SteerRefusal.OTHER_TURN_ACTIVE),
    (r"^cannot steer a \w+ turn$", SteerRefusal.NOT_STEERABLE),
)


def thread_refusal(error: ServerError) -> ThreadRefusal | None:
    """NOT_FOUND / INVALID when the server explicitly said the thread id is unusable."""
    return _read(error, THREAD_RULES)


def steer_refusal(error: ServerError) -> SteerRefusal | None:
    """Why a `turn/steer` was refused because of the turn (not the thread), if it was."""
    return _read(error, STEER_RULES)


def _read(error: ServerError, rules: tuple[tuple[str, Reading], ...]) -> Reading | None:
    if error.code != INVALID_REQUEST:
        return None
    return next((reading for pattern, reading in rules if re.match(pattern, error.message)), None)


def other_active_turn(error: ServerError) -> str:
    """The active turn a mismatch refusal names ("" when it names none)."""
    found = re.match(_TURN_MISMATCH, error.message)
    return found.group(1) if found else ""
