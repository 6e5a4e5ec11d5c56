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

`call` is the 1-based count of that method's requests (omit it for every call).
`vanish` deletes the thread named by the request before it is handled, so upstream's
"not found" answer follows; `never_complete` answers a turn/start but never ends
the turn.
"""

from __future__ import annotations

import json
from collections import Counter
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
}
OPTIONAL = {"call": int, "exit_code": int, "data": object, "text": str}


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
        if not isinstance(raw[name], kind) or isinstance(raw[name], bool):
            raise ScriptError(f"{where}: {name!r} has the wrong type ({raw[name]!r})")
    unknown = set(raw) - {"method", "action"} - set(fields) - set(OPTIONAL)
    if unknown:
        raise ScriptError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    call = raw.get("call")
    if call is not None and (not isinstance(call, int) or isinstance(call, bool) or call < 1):
        raise ScriptError(f"{where}: 'call' must be a positive integer, got {call!r}")
    params = {k: v for k, v in raw.items() if k not in ("method", "action", "call")}
    return Rule(method=method, action=action, call=call, params=params, line=number)
