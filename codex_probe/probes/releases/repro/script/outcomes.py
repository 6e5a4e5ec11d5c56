"""What a reproduction can end with: its exit codes, the kinds of failure it tells apart,
and the exceptions that carry them (the first part of a bundle's reproduce.py)."""

from __future__ import annotations

import json
from typing import Any

REPRODUCED, NOT_REPRODUCED, COULD_NOT_RUN = 0, 1, 2
# How a step can fail; a failure reproduces a recorded one when the step and kind agree.
REFUSED = "refused"
NO_ANSWER = "no answer"
NO_NOTIFICATION = "no notification"
NO_MODEL_REQUEST = "no model request"
SERVER_EXITED = "server exited"
UNEXPECTED_ANSWER = "unexpected answer"


class CouldNotRun(Exception):
    """The run cannot be made at all (no codex binary, an unreadable bundle)."""


class StepFailed(Exception):
    """codex answered a step so that the scenario cannot go on (as codex-probe's run breaks)."""

    def __init__(self, step: str, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.failure = {"step": step, "kind": kind, "detail": detail}


def dig(value: Any, path: list[str]) -> Any:
    """value[path[0]][path[1]]...; None where a part is missing or not an object."""
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def json_or_none(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8", errors="replace")) if raw else None
    except ValueError:
        return None


class ServerGone(Exception):
    """The app-server exited or closed its stdout."""
