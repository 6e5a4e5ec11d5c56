"""The assumptions the design rests on, as a registry a reader can check against the spec.

Each entry: a stable id, the spec section, the statement, whether the design *requires*
it (a change fails the gate) or it is *informative* (a change is reported), the scenario
its probe reads, and what the design expects the probe to observe. `expected` holds only
what the design (or the spec's own measurement) claims; everything else the probe sees
goes into `observed` for the record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Assumption:
    id: str
    spec_section: str
    statement: str
    required: bool
    scenario: str
    expected: dict[str, Any]


ASSUMPTIONS: tuple[Assumption, ...] = (
    Assumption(
        "start-applies-instructions",
        "5.2",
        "Instructions given on thread/start reach the model on the thread's first turn: "
        "both baseInstructions and developerInstructions are in the model request.",
        True,
        "start",
        {"base_seen": True, "developer_seen": True},
    ),
    Assumption(
        "base-developer-placement",
        "5.2",
        "Base and developer instructions reach the model as instructions (the top-level "
        "instructions field, or a developer/system message), never as a user message, on "
        "the first turn and every later turn.",
        True,
        "start",
        {
            "base_in_user_message": False,
            "developer_in_user_message": False,
            "later_turn_keeps_both": True,
        },
    ),
    Assumption(
        "compaction-keeps-instructions",
        "5.1",
        "After thread/compact/start, the next turn's model request still holds both the "
        "base and the developer instructions of thread/start.",
        True,
        "compaction",
        {"base_seen_after": True, "developer_seen_after": True},
    ),
    Assumption(
        "compaction-remote-keeps-instructions",
        "5.1",
        "After thread/compact/start on a provider codex compacts remotely (one named "
        "OpenAI), the next turn's model request still holds both the base and the developer "
        "instructions of thread/start.",
        True,
        "compaction-remote",
        {"base_seen_after": True, "developer_seen_after": True},
    ),
    Assumption(
        "resume-refresh-loaded",
        "5.3",
        "thread/resume with new instruction values on a thread still loaded does not "
        "switch the model to them (the spec measured this on 0.120.0); only a fresh "
        "thread applies new instructions.",
        False,
        "resume-loaded",
        {"new_base_seen": False, "new_developer_seen": False},
    ),
    Assumption(
        "resume-refresh-cold",
        "5.3",
        "thread/resume with new instruction values after an app-server restart does not "
        "switch the model to them (spec 5.3 states it without naming a process lifetime).",
        False,
        "resume-cold",
        {"new_base_seen": False, "new_developer_seen": False},
    ),
    Assumption(
        "resume-refresh-unsubscribed",
        "5.3",
        "thread/resume with new instruction values after thread/unsubscribe does not "
        "switch the model to them.",
        False,
        "resume-unsubscribed",
        {"new_base_seen": False, "new_developer_seen": False},
    ),
    Assumption(
        "resume-override-not-durable",
        "5.3",
        "An instruction value given on thread/resume is not durable: after another "
        "restart and a resume without instruction fields, the thread/start values are back.",
        False,
        "override-persistence",
        {"start_base_back_after_restart": True, "override_base_seen_after_restart": False},
    ),
    Assumption(
        "resume-empty-developer-keeps-old",
        "5.3",
        'thread/resume accepts developerInstructions "" but does not clear the developer '
        "instructions the thread already has (the spec measured this on 0.120.0).",
        False,
        "resume-empty-developer",
        {"accepted": True, "old_developer_seen_loaded": True, "old_developer_seen_cold": True},
    ),
    Assumption(
        "start-empty-and-omitted",
        "6.2",
        "On thread/start an omitted instruction field behaves exactly like null (codex's "
        'defaults), so the driver may omit empty values; an empty baseInstructions "" is '
        "not the same as an omitted one.",
        True,
        "start-empty",
        {
            "base_omitted_equals_null": True,
            "developer_omitted_equals_null": True,
            "empty_base_equals_omitted": False,
        },
    ),
    Assumption(
        "legacy-thread-two-sources",
        "6.3",
        "Resuming a legacy thread (its first turn holds the old full prompt) with "
        "instruction fields gives the model two instruction sources: the old prompt in the "
        "history and the new instructions.",
        False,
        "legacy-thread",
        {"legacy_prompt_in_history": True, "new_instructions_seen": True},
    ),
    Assumption(
        "error-resume-unknown-thread",
        "4.5",
        "thread/resume of an unknown thread id is refused explicitly (a JSON-RPC error the "
        "driver classifies as not found), which is what allows the one fallback.",
        True,
        "errors",
        {"refused": True, "driver_classification": "not_found"},
    ),
    Assumption(
        "error-resume-malformed-id",
        "4.5",
        "thread/resume of a malformed thread id is refused explicitly as invalid.",
        True,
        "errors",
        {"refused": True, "driver_classification": "invalid"},
    ),
    Assumption(
        "error-turn-unloaded-thread",
        "4.5",
        "turn/start on a thread that is on disk but not loaded in this process is refused "
        "explicitly as not found (first direct delivery after a resume that did not load).",
        True,
        "errors",
        {"refused": True, "driver_classification": "not_found"},
    ),
    Assumption(
        "error-steer-no-active-turn",
        "4.6",
        "turn/steer on an idle thread is refused with the answer the driver reads as "
        "'no active turn' (the race where the turn ends before the steer).",
        True,
        "errors",
        {"refused": True, "driver_classification": "no_active_turn"},
    ),
    Assumption(
        "error-steer-wrong-turn",
        "4.6",
        "turn/steer with an expectedTurnId that is not the active turn is refused with the "
        "answer the driver reads as 'another turn is active'.",
        True,
        "errors",
        {"refused": True, "driver_classification": "other_turn_active"},
    ),
    Assumption(
        "cold-resume-new-developer-waits-for-compaction",
        "5.3",
        "After an app-server restart, a new developerInstructions value given on "
        "thread/resume does not reach the model at once (the history keeps the old one) but "
        "does after the next compaction, which injects codex's context again (found by "
        "probing: the spec does not say).",
        False,
        "resume-cold",
        {
            "old_developer_seen_before_compaction": True,
            "new_developer_seen_before_compaction": False,
            "new_developer_seen_after_compaction": True,
        },
    ),
    Assumption(
        "cold-resume-empty-developer-waits-for-compaction",
        "5.3",
        'After an app-server restart, developerInstructions "" given on thread/resume leaves '
        "the old developer instructions with the model until the next compaction, after "
        "which there are none (found by probing: the spec does not say).",
        False,
        "resume-empty-developer",
        {
            "old_developer_seen_before_compaction": True,
            "developer_seen_after_compaction": False,
        },
    ),
    Assumption(
        "start-empty-base-removes-default-prompt",
        "6.2",
        'thread/start with baseInstructions "" leaves the model with no base instructions at '
        "all, not codex's default prompt, which is why the driver omits an empty value.",
        False,
        "start-empty",
        {"default_prompt_seen": False, "base_seen": False},
    ),
    Assumption(
        "steer-mid-answer-keeps-reply",
        "4.6",
        "A turn/steer that arrives while the model is answering keeps the answer under way: "
        "the model's reply stays in the history and the steered input follows it.",
        False,
        "errors",
        {"pending_answer_kept": True},
    ),
    Assumption(
        "error-steer-without-expected-turn-id",
        "4.6",
        "turn/steer without expectedTurnId is refused as an invalid request (the field is "
        "required), so the driver must always name the turn it steers.",
        False,
        "errors",
        {"refused": True, "code": -32600},
    ),
    Assumption(
        "interrupt-without-turn-refused",
        "4.6",
        "turn/interrupt on a thread with no active turn is answered at once, with a refusal "
        "(an interrupt racing the end of its turn does not hang).",
        False,
        "errors",
        {"answered_at_once": True, "refused": True},
    ),
    Assumption(
        "turn-start-while-active-joins-turn",
        "4.6",
        "turn/start while a turn of the thread is active starts no second turn: its input "
        "joins the active turn, and the answer names that turn.",
        False,
        "errors",
        {
            "second_turn_started": False,
            "input_reached_the_active_turn": True,
            "answered_with_the_active_turn": True,
        },
    ),
    Assumption(
        "wire-no-jsonrpc-field-no-error-data",
        "4.6",
        'Messages from the app-server carry no "jsonrpc" field and its errors no "data" '
        "field; a client must not require either.",
        False,
        "errors",
        {"jsonrpc_field_seen": False, "error_data_seen": False},
    ),
    Assumption(
        "cold-resume-without-developer-keeps-it",
        "6.3",
        "A resume after a restart that carries no developer instructions keeps the "
        "thread's developer instructions through a later compaction (found by probing: "
        "the spec does not say).",
        False,
        "override-persistence",
        {"developer_seen_after_compaction": True},
    ),
)

BY_ID = {assumption.id: assumption for assumption in ASSUMPTIONS}
