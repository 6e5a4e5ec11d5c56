"""Fault scripts: which call of which method misbehaves, and how.

A script is a JSON Lines file, one rule per line (blank lines and lines starting
with `#` are skipped), so every error can name its line:

    {"method": "thread/resume", "call": 1, "action": "error", "code": -32600, "message": "..."}
    {"method": "turn/start", "call": 2, "action": "hang"}
    {"method": "turn/start", "action": "delay", "seconds": 1.5}
    {"method": "thread/start", "action": "crash", "exit_code": 101}
    {"method": "initialize", "action": "malformed"}
    {"method": "turn/steer", "action": "close_stdout"}
    {"method": "thread/resume", "call": 1, "action": "vanish"}
    {"method": "turn/start", "action": "never_complete"}
    {"method": "turn/start", "call": 2, "action": "fail_turn"}
    {"method": "thread/compact/start", "action": "skip_compaction"}

`call` is the 1-based count of that method's requests (omit it for every call).
`seconds` is a finite number of 0 or more; `exit_code` a whole number from 0 to 255.
`vanish` deletes the thread named by the request before it is handled, so upstream's
"not found" answer follows; `never_complete` answers a turn/start but never ends
the turn; `fail_turn` answers it and ends the turn `failed` without asking the model;
`skip_compaction` answers a thread/compact/start and completes the compaction turn
without asking the model or changing the history (the probes must call those broken).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ACTIONS: dict[str, dict[str, type | tuple[type, ...]]] = {
    # action -> required fields and their types
    "error": {"code": int, "message": str},
    "hang": {},
    "delay": {"seconds": (int, float)},
    "crash": {},
    "malformed": {},
    "close_stdout": {},
    "vanish": {},
    "never_complete": {},
    "fail_turn": {},
    "skip_compaction": {},
}
OPTIONAL = {"call": int, "exit_code": int, "data": object, "text": str}


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seconds(value: Any) -> bool:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return number and math.isfinite(value) and value >= 0


# Fields whose values are checked beyond their JSON type: the check, and what it wants.
VALUES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "call": (lambda v: v is None or (_whole(v) and v >= 1), "a positive integer"),
    "seconds": (_seconds, "a finite number of 0 or more"),
    "exit_code": (lambda v: _whole(v) and 0 <= v <= 255, "a whole number from 0 to 255"),
    "text": (lambda v: isinstance(v, str), "a string"),
}


class ScriptError(ValueError):
    """A script file that cannot be used; the message names file, line and problem."""


@dataclass(frozen=True)
class Rule:
    method: str
    action: str
    call: int | None
    params: dict[str, Any]
    line: int

    def matches(self, method: str, count: int) -> bool:
        return self.method == method and (self.call is None or self.call == count)


class FaultScript:
    """The rules of one script and the per-method call counts seen so far."""

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules
        self._calls: Counter[str] = Counter()

    def next_fault(self, method: str) -> Rule | None:
        self._calls[method] += 1
        count = self._calls[method]
        return next((rule for rule in self.rules if rule.matches(method, count)), None)


def load_script(path: Path | None) -> FaultScript:
    if path is None:
        return FaultScript([])
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ScriptError(f"{path}: cannot read the script: {error}") from None
    rules = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            rules.append(_parse_rule(path, number, line))
    return FaultScript(rules)


def _parse_rule(path: Path, number: int, line: str) -> Rule:
    where = f"{path}:{number}"
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as error:
        raise ScriptError(f"{where}: not JSON ({error.msg} at column {error.colno})") from None
    if not isinstance(raw, dict):
        raise ScriptError(f"{where}: a rule must be a JSON object")
    method, action = raw.get("method"), raw.get("action")
    if not isinstance(method, str) or not method:
        raise ScriptError(f"{where}: 'method' must be a non-empty string")
    if action not in ACTIONS:
        raise ScriptError(f"{where}: unknown action {action!r}; actions: {', '.join(ACTIONS)}")
    fields = ACTIONS[action]
    for name, kind in fields.items():
        if name not in raw:
            raise ScriptError(f"{where}: action {action!r} needs {name!r}")
        if name not in VALUES and (not isinstance(raw[name], kind) or isinstance(raw[name], bool)):
            raise ScriptError(f"{where}: {name!r} has the wrong type ({raw[name]!r})")
    unknown = set(raw) - {"method", "action"} - set(fields) - set(OPTIONAL)
    if unknown:
        raise ScriptError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    for name, (fits, wanted) in VALUES.items():
        if name in raw and not fits(raw[name]):
            raise ScriptError(f"{where}: {name!r} must be {wanted}, got {raw[name]!r}")
    call = raw.get("call")
    params = {k: v for k, v in raw.items() if k not in ("method", "action", "call")}
    return Rule(method=method, action=action, call=call, params=params, line=number)
