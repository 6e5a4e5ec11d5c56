"""The words an assumption's reading is written in: one builder per operation of
`codex_probe/probes/domain/reading.py`, and each expression said in English (a bundle's README).

An expression is plain data ({operation: argument}), so the same reading judges a probe
run here and a replay in a reproduction bundle. `expect(value, expression)` marks an
observed value the design claims; the rest are recorded for the evidence.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from codex_probe.harness.driver.refusals import INVALID_REQUEST, STEER_RULES, THREAD_RULES
from codex_probe.probes.domain.reading import marker

Expression = dict[str, Any]


@dataclass(frozen=True)
class Expected:
    """An observed value the design expects to be `value`."""

    value: Any
    expression: Expression


def expect(value: Any, expression: Expression) -> Expected:
    return Expected(value, expression)


def refusal_rules() -> dict[str, Any]:
    """How the driver reads a refusal (codex_probe/harness/driver/refusals.py), as data."""
    return {
        "code": INVALID_REQUEST,
        "thread": [[pattern, reading.value] for pattern, reading in THREAD_RULES],
        "steer": [[pattern, reading.value] for pattern, reading in STEER_RULES],
    }


# ----- builders --------------------------------------------------------------------------


def const(value: Any) -> Expression:
    return {"const": value}


def all_of(*parts: Expression) -> Expression:
    return {"all": list(parts)}


def any_of(*parts: Expression) -> Expression:
    return {"any": list(parts)}


def negated(part: Expression) -> Expression:
    return {"not": part}


def equal(first: Expression, second: Expression) -> Expression:
    return {"equal": [first, second]}


def member(value: Expression, collection: Expression) -> Expression:
    return {"member": [value, collection]}


def when(test: Expression, then: Expression) -> Expression:
    """`then`, or no value at all (the key is left out) when `test` is false."""
    return {"if": {"test": test, "then": then}}


def seen(name: str, step: str) -> Expression:
    return {"seen": {"marker": name, "step": step}}


def where(name: str, step: str) -> Expression:
    return {"where": {"marker": name, "step": step}}


def count(name: str, step: str) -> Expression:
    """How many times the marker is in the step's last model request."""
    return {"count": {"marker": name, "step": step}}


def output_seen(name: str, step: str) -> Expression:
    """Whether a function call output in the step's last model request holds the marker."""
    return {"output_seen": {"marker": name, "step": step}}


def outputs(step: str) -> Expression:
    """How many function call outputs the step's last model request sends back."""
    return {"outputs": step}


def item_notified(method: str, kind: str, name: str = "") -> Expression:
    """Whether codex sent a `method` notification of an item of `kind` (holding the marker
    `name`, when given)."""
    return {"notified": _notice(method, kind, name)}


def notified_before(first: Expression, then: Expression) -> Expression:
    """Whether the `first` item notification came, and before the `then` one (or without
    it); both are item_notified expressions."""
    return {"notified_before": {"first": first["notified"], "then": then["notified"]}}


def _notice(method: str, kind: str, name: str) -> dict[str, str]:
    return {"method": method, "type": kind, "marker": name}


def in_user_message(name: str, step: str) -> Expression:
    return {"in_role": {"marker": name, "step": step, "role": "user"}}


def role_before(name: str, step: str) -> Expression:
    return {"role_before": {"marker": name, "step": step}}


def item_before(name: str, step: str) -> Expression:
    return {"item_before": {"marker": name, "step": step}}


def first_of(step: str, **words: str) -> Expression:
    """The word of whichever marker comes first in the step's request ("n/a" unless all
    are there); `words` maps a marker (with `_` for `-`) to its word."""
    return {"order": {"step": step, "markers": {k.replace("_", "-"): w for k, w in words.items()}}}


def block_seen(block: str, step: str) -> Expression:
    return {"block_seen": {"block": block, "step": step}}


def same_layout(first: str, second: str) -> Expression:
    # The user's own text names the case, so it is left out of the comparison.
    return {"same_layout": {"steps": [first, second], "ignoring": "USER-"}}


def request_count(step: str) -> Expression:
    return {"requests": step}


def request_paths(step: str) -> Expression:
    return {"paths": step}


def offers_tools(step: str) -> Expression:
    return {"offers_tools": step}


def refused(step: str) -> Expression:
    return {"refused": step}


def silent(step: str) -> Expression:
    return {"silent": step}


def refusal_field(step: str, field: str | None = None) -> Expression:
    return {"error": {"step": step, "field": field}}


def refusal_reading(step: str, rules: str) -> Expression:
    return {"refusal_reading": {"step": step, "rules": rules}}


def answer(step: str, *path: str) -> Expression:
    return {"answer": {"step": step, "path": list(path)}}


def turns_started() -> Expression:
    return {"turns_started": None}


def received_with_field(name: str) -> Expression:
    return {"received_with_field": name}


def error_with_field(name: str) -> Expression:
    return {"error_with_field": name}


# Operations whose argument is a step's label itself (the others name it under "step").
_STEP_OPERANDS = ("outputs", "requests", "paths", "offers_tools", "refused", "silent")


def steps_read(expression: Any) -> set[str]:
    """The labels of every step an expression reads (checked against its scenario's steps
    before any run: tests/probes/test_registry.py)."""
    if isinstance(expression, list):
        return set().union(*(steps_read(part) for part in expression))
    if not isinstance(expression, dict):
        return set()
    found: set[str] = set()
    for operation, argument in expression.items():
        if operation == "const":
            continue
        if operation in _STEP_OPERANDS and isinstance(argument, str):
            found.add(argument)
        elif isinstance(argument, dict):
            if isinstance(argument.get("step"), str):
                found.add(argument["step"])
            found.update(s for s in argument.get("steps", []) if isinstance(s, str))
            found |= steps_read([v for k, v in argument.items() if k not in ("step", "steps")])
        else:
            found |= steps_read(argument)
    return found


# ----- in words --------------------------------------------------------------------------


def describe(expression: Expression) -> str:
    """An expression in words, for a bundle's README."""
    [(operation, at)] = expression.items()
    in_request = "in the last model request of step `{step}`"
    phrases: dict[str, Callable[[], str]] = {
        "const": lambda: json.dumps(at),
        "all": lambda: " and ".join(f"({describe(part)})" for part in at),
        "any": lambda: " or ".join(f"({describe(part)})" for part in at),
        "not": lambda: f"not ({describe(at)})",
        "equal": lambda: f"{describe(at[0])} equals {describe(at[1])}",
        "member": lambda: f"{describe(at[0])} is one of {describe(at[1])}",
        "if": lambda: f"{describe(at['then'])}, recorded only if {describe(at['test'])}",
        "seen": lambda: f"`{marker(at['marker'])}` is " + in_request.format(**at),
        "where": lambda: f"where `{marker(at['marker'])}` is " + in_request.format(**at),
        "count": lambda: f"how many times `{marker(at['marker'])}` is " + in_request.format(**at),
        "output_seen": lambda: (
            f"a function call output holds `{marker(at['marker'])}` " + in_request.format(**at)
        ),
        "outputs": lambda: (
            f"how many function call outputs the last model request of step `{at}` sends back"
        ),
        "notified": lambda: f"codex notified {_said(at)}",
        "notified_before": lambda: (
            f"codex notified {_said(at['first'])} before {_said(at['then'])} (or without it)"
        ),
        "in_role": lambda: (
            f"`{marker(at['marker'])}` is in a {at['role']} message " + in_request.format(**at)
        ),
        "role_before": lambda: (
            f"the role of the input item before `{marker(at['marker'])}` " + in_request.format(**at)
        ),
        "item_before": lambda: (
            f"the input item before `{marker(at['marker'])}` (as labels) " + in_request.format(**at)
        ),
        "order": lambda: (
            "which comes first "
            + in_request.format(**at)
            + ": "
            + ", ".join(f"`{marker(name)}` ({word})" for name, word in at["markers"].items())
        ),
        "block_seen": lambda: f"codex's block `{at['block']}` is " + in_request.format(**at),
        "same_layout": lambda: (
            f"steps `{at['steps'][0]}` and `{at['steps'][1]}` send the model "
            f"the same layout (instructions field, roles, labelled parts; `{at['ignoring']}` aside)"
        ),
        "requests": lambda: f"how many model requests step `{at}` made",
        "paths": lambda: f"the HTTP path of each model request of step `{at}`",
        "offers_tools": lambda: f"the first model request of step `{at}` offers tools",
        "refused": lambda: f"step `{at}` was refused (a JSON-RPC error)",
        "silent": lambda: f"step `{at}` got no answer within its deadline",
        "error": lambda: (
            f"the refusal of step `{at['step']}`"
            if at["field"] is None
            else f"the {at['field']} of the refusal of step `{at['step']}`"
        ),
        "refusal_reading": lambda: (
            f"how the driver reads the refusal of step `{at['step']}` "
            f"(code {INVALID_REQUEST} and the first matching {at['rules']} rule)"
        ),
        "answer": lambda: f"`{'.'.join(at['path'])}` of the answer to step `{at['step']}`",
        "turns_started": lambda: "the turn ids of all turn/started notifications",
        "received_with_field": lambda: f"a message from codex has a `{at}` field",
        "error_with_field": lambda: f"an error from codex has a `{at}` field",
    }
    return phrases[operation]()


def _said(notice: dict[str, str]) -> str:
    holding = f" holding `{marker(notice['marker'])}`" if notice.get("marker") else ""
    return f"`{notice['method']}` of a {notice['type']} item{holding}"
