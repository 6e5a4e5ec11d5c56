"""Each assumption's check reduced to data: where a reproduction bundle reads each value.

A check (probes/checks.py) is Python over an Observation; a bundle's reproduce.py may use
the standard library only, so it cannot import it. Here every observed value a bundle
reports is an expression ({operation: argument}) that the script's `Reading` evaluates on
a record: of the probe's run (observation.json) or of its own. Every key the assumption
expects is here; a few more (where a marker was, an error's code and message) say what
codex did in the finding's terms. The bundle writer refuses a bundle whose expressions,
read on the probe's own run, disagree with the check (probes/repro/bundle.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from codex_probe.harness.driver.refusals import INVALID_REQUEST, STEER_RULES, THREAD_RULES
from codex_probe.probes.observation import CODEX_BLOCKS, COMPACTION_PROMPT_OPENING, MARKER, marker

Expression = dict[str, Any]
DEFAULT_PROMPT = "codex:default_prompt"


def vocabulary() -> dict[str, Any]:
    """What the expressions are read with: how markers look, codex's own blocks, and how
    the driver reads a refusal (the rules of harness/driver/refusals.py, as data)."""
    return {
        "marker_prefix": marker(""),
        "marker_pattern": MARKER.pattern,
        "codex_blocks": [list(block) for block in CODEX_BLOCKS],
        "compaction_prompt": COMPACTION_PROMPT_OPENING,
        "refusal_code": INVALID_REQUEST,
        "refusal_rules": {
            "thread": [[pattern, reading.value] for pattern, reading in THREAD_RULES],
            "steer": [[pattern, reading.value] for pattern, reading in STEER_RULES],
        },
    }


def seen(name: str, step: str) -> Expression:
    return {"seen": {"marker": name, "step": step}}


def where(name: str, step: str) -> Expression:
    return {"where": {"marker": name, "step": step}}


def in_user_message(name: str, step: str) -> Expression:
    return {"in_role": {"marker": name, "step": step, "role": "user"}}


def all_of(*parts: Expression) -> Expression:
    return {"all": list(parts)}


def any_of(*parts: Expression) -> Expression:
    return {"any": list(parts)}


def negated(part: Expression) -> Expression:
    return {"not": part}


def equal(first: Expression, second: Expression) -> Expression:
    return {"equal": [first, second]}


def answer(step: str, *path: str) -> Expression:
    return {"answer": {"step": step, "path": list(path)}}


def block_seen(block: str, step: str) -> Expression:
    return {"block_seen": {"block": block, "step": step}}


def same_layout(first: str, second: str) -> Expression:
    # The user's own text names the case, so it is left out of the comparison.
    return {"same_layout": {"steps": [first, second], "ignoring": "USER-"}}


def refusal(step: str, rules: str) -> dict[str, Expression]:
    return {
        "refused": {"refused": step},
        "code": {"error": {"step": step, "field": "code"}},
        "message": {"error": {"step": step, "field": "message"}},
        "driver_classification": {"refusal_reading": {"step": step, "rules": rules}},
    }


def compaction(next_turn: str) -> dict[str, Expression]:
    return {
        "base_seen_after": seen("BASE-V1", next_turn),
        "developer_seen_after": seen("DEV-V1", next_turn),
        "base_at_after": where("BASE-V1", next_turn),
        "developer_at_after": where("DEV-V1", next_turn),
    }


REFRESH = {
    "new_base_seen": seen("BASE-V2", "turn-2"),
    "new_developer_seen": seen("DEV-V2", "turn-2"),
    "old_base_seen": seen("BASE-V1", "turn-2"),
    "old_developer_seen": seen("DEV-V1", "turn-2"),
    "new_base_seen_after_compaction": seen("BASE-V2", "turn-3"),
    "new_developer_seen_after_compaction": seen("DEV-V2", "turn-3"),
}
BUSY, ACTIVE = answer("turn-start-busy", "turn", "id"), answer("turn-3", "turn", "id")

READINGS: dict[str, dict[str, Expression]] = {
    "start-applies-instructions": {
        "base_seen": seen("BASE-V1", "turn-1"),
        "developer_seen": seen("DEV-V1", "turn-1"),
        "base_at": where("BASE-V1", "turn-1"),
        "developer_at": where("DEV-V1", "turn-1"),
    },
    "base-developer-placement": {
        "base_in_user_message": in_user_message("BASE-V1", "turn-1"),
        "developer_in_user_message": in_user_message("DEV-V1", "turn-1"),
        "later_turn_keeps_both": all_of(seen("BASE-V1", "turn-2"), seen("DEV-V1", "turn-2")),
        "base_at": where("BASE-V1", "turn-1"),
        "developer_at": where("DEV-V1", "turn-1"),
        "base_at_later_turn": where("BASE-V1", "turn-2"),
        "developer_at_later_turn": where("DEV-V1", "turn-2"),
    },
    "compaction-keeps-instructions": compaction("turn-3"),
    "compaction-remote-keeps-instructions": compaction("turn-2"),
    "resume-refresh-loaded": REFRESH,
    "resume-refresh-cold": REFRESH,
    "resume-refresh-unsubscribed": {
        **REFRESH,
        "unloaded_after_unsubscribe": answer("unsubscribe", "unloaded"),
    },
    "resume-override-not-durable": {
        "override_base_seen": seen("BASE-V2", "turn-2"),
        "start_base_back_after_restart": seen("BASE-V1", "turn-3"),
        "override_base_seen_after_restart": seen("BASE-V2", "turn-3"),
    },
    "cold-resume-without-developer-keeps-it": {
        "developer_seen_before_compaction": seen("DEV-V1", "turn-3"),
        "developer_seen_after_compaction": seen("DEV-V1", "turn-4"),
    },
    "resume-empty-developer-keeps-old": {
        "accepted": all_of(
            negated({"refused": "resume-loaded"}), negated({"refused": "resume-cold"})
        ),
        "old_developer_seen_loaded": seen("DEV-V1", "turn-2"),
        "old_developer_seen_cold": seen("DEV-V1", "turn-3"),
        "old_developer_seen_after_compaction": seen("DEV-V1", "turn-4"),
    },
    "cold-resume-new-developer-waits-for-compaction": {
        "old_developer_seen_before_compaction": seen("DEV-V1", "turn-2"),
        "new_developer_seen_before_compaction": seen("DEV-V2", "turn-2"),
        "new_developer_seen_after_compaction": seen("DEV-V2", "turn-3"),
        "old_developer_seen_after_compaction": seen("DEV-V1", "turn-3"),
    },
    "cold-resume-empty-developer-waits-for-compaction": {
        "old_developer_seen_before_compaction": seen("DEV-V1", "turn-3"),
        "developer_seen_after_compaction": seen("DEV-V1", "turn-4"),
    },
    "start-empty-and-omitted": {
        "base_omitted_equals_null": same_layout("turn-base-omitted", "turn-base-null"),
        "developer_omitted_equals_null": same_layout(
            "turn-developer-omitted", "turn-developer-null"
        ),
        "empty_base_equals_omitted": same_layout("turn-base-empty", "turn-base-omitted"),
        "empty_developer_equals_omitted": same_layout(
            "turn-developer-empty", "turn-developer-omitted"
        ),
        "null_base_gives_default_prompt": block_seen(DEFAULT_PROMPT, "turn-base-null"),
        "empty_base_gives_default_prompt": block_seen(DEFAULT_PROMPT, "turn-base-empty"),
    },
    "legacy-thread-two-sources": {
        "legacy_prompt_in_history": seen("LEGACY-PROMPT", "turn-2"),
        "legacy_prompt_at": where("LEGACY-PROMPT", "turn-2"),
        "new_instructions_seen": any_of(seen("BASE-V2", "turn-2"), seen("DEV-V2", "turn-2")),
        "new_base_seen": seen("BASE-V2", "turn-2"),
        "new_developer_seen": seen("DEV-V2", "turn-2"),
        "codex_default_prompt_seen": block_seen(DEFAULT_PROMPT, "turn-2"),
    },
    "error-resume-unknown-thread": refusal("resume-unknown", "thread"),
    "error-resume-malformed-id": refusal("resume-malformed", "thread"),
    "error-turn-unloaded-thread": refusal("turn-unloaded", "thread"),
    "error-steer-no-active-turn": refusal("steer-idle", "steer"),
    "error-steer-wrong-turn": refusal("steer-wrong", "steer"),
    "error-steer-without-expected-turn-id": refusal("steer-without-expected", "steer"),
    "start-empty-base-removes-default-prompt": {
        "default_prompt_seen": block_seen(DEFAULT_PROMPT, "turn-base-empty"),
        "base_seen": seen("BASE-E", "turn-base-empty"),
    },
    "steer-mid-answer-keeps-reply": {
        "pending_answer_kept": equal(
            {"role_before": {"marker": "USER-STEER-RIGHT", "step": "turn-2-done"}},
            {"const": "assistant"},
        ),
    },
    "interrupt-without-turn-refused": {
        "answered_at_once": negated({"silent": "interrupt-idle"}),
        "refused": {"refused": "interrupt-idle"},
    },
    "turn-start-while-active-joins-turn": {
        "refused": {"refused": "turn-start-busy"},
        "second_turn_started": all_of(
            negated(equal(BUSY, ACTIVE)), {"member": [BUSY, {"turns_started": None}]}
        ),
        "input_reached_the_active_turn": seen("USER-BUSY", "turn-3-done"),
        "answered_with_the_active_turn": equal(BUSY, ACTIVE),
    },
    "wire-no-jsonrpc-field-no-error-data": {
        "jsonrpc_field_seen": {"received_with_field": "jsonrpc"},
        "error_data_seen": {"error_with_field": "data"},
    },
}


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
        "seen": lambda: f"`{marker(at['marker'])}` is " + in_request.format(**at),
        "where": lambda: f"where `{marker(at['marker'])}` is " + in_request.format(**at),
        "in_role": lambda: (
            f"`{marker(at['marker'])}` is in a {at['role']} message " + in_request.format(**at)
        ),
        "role_before": lambda: (
            f"the role of the input item before `{marker(at['marker'])}` " + in_request.format(**at)
        ),
        "block_seen": lambda: f"codex's block `{at['block']}` is " + in_request.format(**at),
        "same_layout": lambda: (
            f"steps `{at['steps'][0]}` and `{at['steps'][1]}` send the model "
            f"the same layout (instructions field, roles, labelled parts; `{at['ignoring']}` aside)"
        ),
        "refused": lambda: f"step `{at}` was refused (a JSON-RPC error)",
        "silent": lambda: f"step `{at}` got no answer within its deadline",
        "error": lambda: f"the {at['field']} of the error step `{at['step']}` got",
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
