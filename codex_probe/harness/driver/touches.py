"""What the reference driver touches of the protocol, read from its own source: the one
place that says which methods it sends, which notifications it waits on or reads, and how
it reads a refusal.

Nothing here is a hand-kept list. The methods and notifications are the string literals
the driver's code hands to the calls that send and wait (`_request("thread/resume", ...)`,
`TurnRequest("turn/steer", ...)`, `wait_for_notification("turn/completed", ...)`,
`note.method == "turn/completed"`), in every module of codex_probe/harness/driver/ and in the
handshake it opens each server with (codex_probe/harness/codex/appserver.py, which `drive_once`
calls). The refusals are the rules of refusals.py, as data. A new request in the driver
is a new touch here with no edit to this file; a test holds the list to what the driver
is seen to send.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from codex_probe.harness.codex import appserver
from codex_probe.harness.driver import refusals

# Calls whose first argument is a method the caller sends (a request or a notification).
SENDING_CALLS = frozenset({"request", "_request", "notify", "TurnRequest"})
# Calls whose first argument is a notification the caller waits for.
WAITING_CALLS = frozenset({"wait_for_notification"})
DRIVER_FOLDER = Path(__file__).resolve().parent
# Modules outside codex_probe/harness/driver/ whose requests the driver makes: the handshake.
HANDSHAKE_MODULES = (Path(appserver.__file__).resolve(),)


@dataclass(frozen=True)
class DriverTouches:
    """The protocol as the reference driver uses it."""

    sends: frozenset[str]  # client requests and notifications it sends
    reads: frozenset[str]  # server notifications it waits on or looks for
    refusal_code: int  # the JSON-RPC error code its refusal rules read
    # (pattern, reading) of every rule, thread rules first: how a refusal's message reads.
    refusal_rules: tuple[tuple[str, str], ...]

    def reading_of(self, code: object, message: object) -> str | None:
        """How the driver reads a refusal (`not_found`, `no_active_turn`...), or None."""
        if code != self.refusal_code:
            return None
        text = str(message)
        rules = self.refusal_rules
        return next((reading for pattern, reading in rules if re.match(pattern, text)), None)


@functools.cache
def driver_touches() -> DriverTouches:
    sends: set[str] = set()
    waits: set[str] = set()
    compared: set[str] = set()
    for path in sorted(DRIVER_FOLDER.glob("*.py")) + list(HANDSHAKE_MODULES):
        found = methods_in(path.read_text(encoding="utf-8"))
        sends |= found.sends
        waits |= found.waits
        compared |= found.compared
    # A method compared with that the driver also sends is one it dispatches a request on
    # (`request.method == "turn/start"`); the others are notifications it looks for.
    reads = waits | (compared - sends)
    rules = tuple(
        (pattern, reading.value)
        for pattern, reading in (*refusals.THREAD_RULES, *refusals.STEER_RULES)
    )
    return DriverTouches(frozenset(sends), frozenset(reads), refusals.INVALID_REQUEST, rules)


@dataclass
class MethodsInSource:
    sends: set[str] = field(default_factory=set)  # first argument of a sending call
    waits: set[str] = field(default_factory=set)  # first argument of a waiting call
    compared: set[str] = field(default_factory=set)  # `x.method == "..."`


def methods_in(source: str) -> MethodsInSource:
    """The method names a module's code sends, waits for, and compares a `.method` with."""
    found = MethodsInSource()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args:
            name = _called(node.func)
            method = _literal(node.args[0])
            if method is None:
                continue
            if name in SENDING_CALLS:
                found.sends.add(method)
            elif name in WAITING_CALLS:
                found.waits.add(method)
        elif isinstance(node, ast.Compare) and _is_method_attribute(node.left):
            for comparator in node.comparators:
                if (method := _literal(comparator)) is not None:
                    found.compared.add(method)
    return found


def _called(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _literal(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
        return node.value
    return None


def _is_method_attribute(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "method"
