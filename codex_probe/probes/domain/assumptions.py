"""The assumptions the design rests on: one entry each, everything about it in one place.

An entry holds a stable id, the spec section, the statement, whether the design
*requires* it (a change fails the gate) or it is *informative* (a change is reported), the
scenario whose run it is read from, and its reading: each observed value as an expression
(`codex_probe/probes/domain/expressions.py`), the ones the design claims wrapped in `expect(value,
...)`. `expected` holds only what the design (or the spec's own measurement) claims; the
other values are recorded for the evidence. The probe, learn and a reproduction bundle
all evaluate the same reading (`codex_probe/probes/domain/reading.py`).

Step labels (`turn-1`, `compact`, ...) are those of the scenario
(codex_probe/probes/runner/scenarios.py); marker names (`BASE-V1`, `USER-2`, ...) those its texts
carry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codex_probe.harness.driver.refusals import INVALID_REQUEST
from codex_probe.probes.domain.expressions import (
    Expected,
    Expression,
    all_of,
    answer,
    any_of,
    block_seen,
    const,
    count,
    equal,
    error_with_field,
    expect,
    first_of,
    in_user_message,
    item_before,
    item_notified,
    member,
    negated,
    notified_before,
    offers_tools,
    outputs,
    received_with_field,
    refusal_field,
    refusal_reading,
    refused,
    request_count,
    request_paths,
    role_before,
    same_layout,
    seen,
    silent,
    turns_started,
    when,
    where,
)
from codex_probe.probes.domain.reading import DEFAULT_PROMPT, MODEL_SWITCH


@dataclass(frozen=True, kw_only=True)
class Assumption:
    id: str
    spec_section: str
    statement: str
    required: bool
    scenario: str
    values: dict[str, Expression | Expected]

    @property
    def reads(self) -> dict[str, Expression]:
        """How each observed value is read."""
        return {
            key: value.expression if isinstance(value, Expected) else value
            for key, value in self.values.items()
        }

    @property
    def expected(self) -> dict[str, Any]:
        """What the design expects of the values it claims."""
        return {k: v.value for k, v in self.values.items() if isinstance(v, Expected)}


def compaction_kept(next_turn: str) -> dict[str, Expression | Expected]:
    """Both instructions in the request after a compaction, and what the compaction sent."""
    return {
        "base_seen_after": expect(True, seen("BASE-V1", next_turn)),
        "developer_seen_after": expect(True, seen("DEV-V1", next_turn)),
        "base_at_after": where("BASE-V1", next_turn),
        "developer_at_after": where("DEV-V1", next_turn),
        "compaction_model_requests": request_count("compact"),
        "compaction_request_offers_tools": offers_tools("compact"),
    }


def refreshed() -> dict[str, Expression | Expected]:
    """Whether the V2 instructions of a resume reached the next turn, and after compaction."""
    return {
        "new_base_seen": expect(False, seen("BASE-V2", "turn-2")),
        "new_developer_seen": expect(False, seen("DEV-V2", "turn-2")),
        "old_base_seen": seen("BASE-V1", "turn-2"),
        "old_developer_seen": seen("DEV-V1", "turn-2"),
        "new_base_seen_after_compaction": seen("BASE-V2", "turn-3"),
        "new_developer_seen_after_compaction": seen("DEV-V2", "turn-3"),
    }


def refusal(step: str, rules: str, reading: str | None) -> dict[str, Expression | Expected]:
    """A step the design expects codex to refuse, read as the driver reads it (`rules`:
    thread or steer); `reading` is the driver's expected reading (None: only the code)."""
    code = when(refused(step), refusal_field(step, "code"))
    classification = when(refused(step), refusal_reading(step, rules))
    return {
        "refused": expect(True, refused(step)),
        "code": code if reading is not None else expect(INVALID_REQUEST, code),
        "message": when(refused(step), refusal_field(step, "message")),
        # JSON-RPC error data: what a client could read besides the words (none: null).
        "data": when(refused(step), refusal_field(step, "data")),
        "driver_classification": (
            classification if reading is None else expect(reading, classification)
        ),
        "result": when(negated(refused(step)), answer(step)),
    }


BUSY, ACTIVE = answer("turn-start-busy", "turn", "id"), answer("turn-3", "turn", "id")


def turn_completed(step: str) -> Expression:
    """Whether the step's turn ended with turn/completed, status completed (a step that
    may go unanswered records its silence instead: then this is false)."""
    return equal(answer(step, "turn/completed", "turn", "status"), const("completed"))


def both_instructions(step: str, tag: str = "V1") -> dict[str, Expression | Expected]:
    return {
        "base_seen": expect(True, seen(f"BASE-{tag}", step)),
        "developer_seen": expect(True, seen(f"DEV-{tag}", step)),
    }


STEERED = item_notified("item/started", "userMessage", "USER-STEER")
IN_FLIGHT_ANSWER = item_notified("item/completed", "agentMessage", "ANSWER-HELD")

ASSUMPTIONS: tuple[Assumption, ...] = (
    Assumption(
        id="start-applies-instructions",
        spec_section="5.2",
        statement="Instructions given on thread/start reach the model on the thread's first turn: "
        "both baseInstructions and developerInstructions are in the model request.",
        required=True,
        scenario="start",
        values={
            "base_seen": expect(True, seen("BASE-V1", "turn-1")),
            "developer_seen": expect(True, seen("DEV-V1", "turn-1")),
            "base_at": where("BASE-V1", "turn-1"),
            "developer_at": where("DEV-V1", "turn-1"),
        },
    ),
    Assumption(
        id="base-developer-placement",
        spec_section="5.2",
        statement="Base and developer instructions reach the model as instructions (the top-level "
        "instructions field, or a developer/system message), never as a user message, on "
        "the first turn and every later turn.",
        required=True,
        scenario="start",
        values={
            "base_in_user_message": expect(False, in_user_message("BASE-V1", "turn-1")),
            "developer_in_user_message": expect(False, in_user_message("DEV-V1", "turn-1")),
            "later_turn_keeps_both": expect(
                True, all_of(seen("BASE-V1", "turn-2"), seen("DEV-V1", "turn-2"))
            ),
            "base_at": where("BASE-V1", "turn-1"),
            "developer_at": where("DEV-V1", "turn-1"),
            "order": first_of("turn-1", BASE_V1="base first", DEV_V1="developer first"),
            "base_at_later_turn": where("BASE-V1", "turn-2"),
            "developer_at_later_turn": where("DEV-V1", "turn-2"),
        },
    ),
    Assumption(
        id="compaction-keeps-instructions",
        spec_section="5.1",
        statement="After thread/compact/start, the next turn's model request still holds both the "
        "base and the developer instructions of thread/start.",
        required=True,
        scenario="compaction",
        values=compaction_kept("turn-3"),
    ),
    Assumption(
        id="compaction-remote-keeps-instructions",
        spec_section="5.1",
        statement="After thread/compact/start on a provider codex compacts remotely (one named "
        "OpenAI), the next turn's model request still holds both the base and the developer "
        "instructions of thread/start.",
        required=True,
        scenario="compaction-remote",
        values={**compaction_kept("turn-2"), "compaction_paths": request_paths("compact")},
    ),
    Assumption(
        id="resume-refresh-loaded",
        spec_section="5.3",
        statement="thread/resume with new instruction values on a thread still loaded does not "
        "switch the model to them (the spec measured this on 0.120.0); only a fresh "
        "thread applies new instructions.",
        required=False,
        scenario="resume-loaded",
        values=refreshed(),
    ),
    Assumption(
        id="resume-refresh-cold",
        spec_section="5.3",
        statement="thread/resume with new instruction values after an app-server restart does not "
        "switch the model to them (spec 5.3 states it without naming a process lifetime).",
        required=False,
        scenario="resume-cold",
        values=refreshed(),
    ),
    Assumption(
        id="resume-refresh-unsubscribed",
        spec_section="5.3",
        statement="thread/resume with new instruction values after thread/unsubscribe does not "
        "switch the model to them.",
        required=False,
        scenario="resume-unsubscribed",
        values={**refreshed(), "unloaded_after_unsubscribe": answer("unsubscribe", "unloaded")},
    ),
    Assumption(
        id="resume-override-not-durable",
        spec_section="5.3",
        statement="An instruction value given on thread/resume is not durable: after another "
        "restart and a resume without instruction fields, the thread/start values are back.",
        required=False,
        scenario="override-persistence",
        values={
            "override_base_seen": seen("BASE-V2", "turn-2"),
            "start_base_back_after_restart": expect(True, seen("BASE-V1", "turn-3")),
            "override_base_seen_after_restart": expect(False, seen("BASE-V2", "turn-3")),
        },
    ),
    Assumption(
        id="resume-empty-developer-keeps-old",
        spec_section="5.3",
        statement='thread/resume accepts developerInstructions "" but does not clear the developer '
        "instructions the thread already has (the spec measured this on 0.120.0).",
        required=False,
        scenario="resume-empty-developer",
        values={
            "accepted": expect(
                True,
                all_of(negated(refused("resume-loaded")), negated(refused("resume-cold"))),
            ),
            "old_developer_seen_loaded": expect(True, seen("DEV-V1", "turn-2")),
            "old_developer_seen_cold": expect(True, seen("DEV-V1", "turn-3")),
            "old_developer_seen_after_compaction": seen("DEV-V1", "turn-4"),
        },
    ),
    Assumption(
        id="start-empty-and-omitted",
        spec_section="6.2",
        statement="On thread/start an omitted instruction field behaves exactly like null (codex's "
        'defaults), so the driver may omit empty values; an empty baseInstructions "" is '
        "not the same as an omitted one.",
        required=True,
        scenario="start-empty",
        values={
            "base_omitted_equals_null": expect(
                True, same_layout("turn-base-omitted", "turn-base-null")
            ),
            "developer_omitted_equals_null": expect(
                True, same_layout("turn-developer-omitted", "turn-developer-null")
            ),
            "empty_base_equals_omitted": expect(
                False, same_layout("turn-base-empty", "turn-base-omitted")
            ),
            "empty_developer_equals_omitted": same_layout(
                "turn-developer-empty", "turn-developer-omitted"
            ),
            "null_base_gives_default_prompt": block_seen(DEFAULT_PROMPT, "turn-base-null"),
            "empty_base_gives_default_prompt": block_seen(DEFAULT_PROMPT, "turn-base-empty"),
        },
    ),
    Assumption(
        id="legacy-thread-two-sources",
        spec_section="6.3",
        statement="Resuming a legacy thread (its first turn holds the old full prompt) with "
        "instruction fields gives the model two instruction sources: the old prompt in the "
        "history and the new instructions.",
        required=False,
        scenario="legacy-thread",
        values={
            "legacy_prompt_in_history": expect(True, seen("LEGACY-PROMPT", "turn-2")),
            "legacy_prompt_at": where("LEGACY-PROMPT", "turn-2"),
            "new_instructions_seen": expect(
                True, any_of(seen("BASE-V2", "turn-2"), seen("DEV-V2", "turn-2"))
            ),
            "new_base_seen": seen("BASE-V2", "turn-2"),
            "new_developer_seen": seen("DEV-V2", "turn-2"),
            "codex_default_prompt_seen": block_seen(DEFAULT_PROMPT, "turn-2"),
        },
    ),
    Assumption(
        id="error-resume-unknown-thread",
        spec_section="4.5",
        statement="thread/resume of an unknown thread id is refused explicitly (a JSON-RPC error "
        "the driver classifies as not found), which is what allows the one fallback.",
        required=True,
        scenario="errors",
        values=refusal("resume-unknown", "thread", "not_found"),
    ),
    Assumption(
        id="error-resume-malformed-id",
        spec_section="4.5",
        statement="thread/resume of a malformed thread id is refused explicitly as invalid.",
        required=True,
        scenario="errors",
        values=refusal("resume-malformed", "thread", "invalid"),
    ),
    Assumption(
        id="error-turn-unloaded-thread",
        spec_section="4.5",
        statement="turn/start on a thread that is on disk but not loaded in this process is "
        "refused explicitly as not found (first direct delivery after a resume that did not load).",
        required=True,
        scenario="errors",
        values=refusal("turn-unloaded", "thread", "not_found"),
    ),
    Assumption(
        id="error-steer-no-active-turn",
        spec_section="4.6",
        statement="turn/steer on an idle thread is refused with the answer the driver reads as "
        "'no active turn' (the race where the turn ends before the steer).",
        required=True,
        scenario="errors",
        values=refusal("steer-idle", "steer", "no_active_turn"),
    ),
    Assumption(
        id="error-steer-wrong-turn",
        spec_section="4.6",
        statement="turn/steer with an expectedTurnId that is not the active turn is refused with "
        "the answer the driver reads as 'another turn is active'.",
        required=True,
        scenario="errors",
        values=refusal("steer-wrong", "steer", "other_turn_active"),
    ),
    Assumption(
        id="cold-resume-new-developer-waits-for-compaction",
        spec_section="5.3",
        statement="After an app-server restart, a new developerInstructions value given on "
        "thread/resume does not reach the model at once (the history keeps the old one) but "
        "does after the next compaction, which injects codex's context again (found by "
        "probing: the spec does not say).",
        required=False,
        scenario="resume-cold",
        values={
            "old_developer_seen_before_compaction": expect(True, seen("DEV-V1", "turn-2")),
            "new_developer_seen_before_compaction": expect(False, seen("DEV-V2", "turn-2")),
            "new_developer_seen_after_compaction": expect(True, seen("DEV-V2", "turn-3")),
            "old_developer_seen_after_compaction": seen("DEV-V1", "turn-3"),
        },
    ),
    Assumption(
        id="cold-resume-empty-developer-waits-for-compaction",
        spec_section="5.3",
        statement='After an app-server restart, developerInstructions "" given on thread/resume '
        "leaves the old developer instructions with the model until the next compaction, after "
        "which there are none (found by probing: the spec does not say).",
        required=False,
        scenario="resume-empty-developer",
        values={
            "old_developer_seen_before_compaction": expect(True, seen("DEV-V1", "turn-3")),
            "developer_seen_after_compaction": expect(False, seen("DEV-V1", "turn-4")),
        },
    ),
    Assumption(
        id="start-empty-base-removes-default-prompt",
        spec_section="6.2",
        statement='thread/start with baseInstructions "" leaves the model with no base '
        "instructions at all, not codex's default prompt, which is why the driver omits an empty "
        "value.",
        required=False,
        scenario="start-empty",
        values={
            "default_prompt_seen": expect(False, block_seen(DEFAULT_PROMPT, "turn-base-empty")),
            "base_seen": expect(False, seen("BASE-E", "turn-base-empty")),
        },
    ),
    Assumption(
        id="steer-mid-answer-keeps-reply",
        spec_section="4.6",
        statement="A turn/steer that arrives while the model is answering keeps the answer under "
        "way: the model's reply stays in the history and the steered input follows it.",
        required=False,
        scenario="errors",
        values={
            "pending_answer_kept": expect(
                True,
                equal(role_before("USER-STEER-RIGHT", "turn-2-done"), const("assistant")),
            ),
            "before_the_steered_input": item_before("USER-STEER-RIGHT", "turn-2-done"),
        },
    ),
    Assumption(
        id="error-steer-without-expected-turn-id",
        spec_section="4.6",
        statement="turn/steer without expectedTurnId is refused as an invalid request (the field "
        "is required), so the driver must always name the turn it steers.",
        required=False,
        scenario="errors",
        values=refusal("steer-without-expected", "steer", None),
    ),
    Assumption(
        id="interrupt-without-turn-refused",
        spec_section="4.6",
        statement="turn/interrupt on a thread with no active turn is answered at once, with a "
        "refusal (an interrupt racing the end of its turn does not hang).",
        required=False,
        scenario="errors",
        values={
            "answered_at_once": expect(True, negated(silent("interrupt-idle"))),
            "refused": expect(True, refused("interrupt-idle")),
            "error": when(refused("interrupt-idle"), refusal_field("interrupt-idle")),
        },
    ),
    Assumption(
        id="turn-start-while-active-joins-turn",
        spec_section="4.6",
        statement="turn/start while a turn of the thread is active starts no second turn: its "
        "input joins the active turn, and the answer names that turn.",
        required=False,
        scenario="errors",
        values={
            "refused": refused("turn-start-busy"),
            "second_turn_started": expect(
                False, all_of(negated(equal(BUSY, ACTIVE)), member(BUSY, turns_started()))
            ),
            "input_reached_the_active_turn": expect(True, seen("USER-BUSY", "turn-3-done")),
            "answered_with_the_active_turn": expect(True, equal(BUSY, ACTIVE)),
        },
    ),
    Assumption(
        id="wire-no-jsonrpc-field-no-error-data",
        spec_section="4.6",
        statement='Messages from the app-server carry no "jsonrpc" field and its errors no "data" '
        "field; a client must not require either.",
        required=False,
        scenario="errors",
        values={
            "jsonrpc_field_seen": expect(False, received_with_field("jsonrpc")),
            "error_data_seen": expect(False, error_with_field("data")),
        },
    ),
    Assumption(
        id="model-switch-sends-base-once",
        spec_section="5.2",
        statement="After the model is switched mid-thread (turn/start naming another model), the "
        "next model request holds the base instructions once and the developer instructions once: "
        "a switch does not send the thread's instructions again.",
        required=False,
        scenario="model-switch",
        values={
            "base_count": expect(1, count("BASE-V1", "turn-2")),
            "developer_count": expect(1, count("DEV-V1", "turn-2")),
            "base_at": where("BASE-V1", "turn-2"),
            "model_switch_block_seen": block_seen(MODEL_SWITCH, "turn-2"),
            "base_in_model_switch_block": block_seen(f"{MODEL_SWITCH}[BASE-V1]", "turn-2"),
            "base_count_before_switch": count("BASE-V1", "turn-1"),
        },
    ),
    Assumption(
        id="tool-call-turn-completes",
        spec_section="5.2",
        statement="A turn in which the model calls a tool (exec_command) runs it, sends the call's "
        "output back in the turn's next model request with both instructions still there, "
        "and ends with turn/completed.",
        required=True,
        scenario="tool-call",
        values={
            "turn_completed": expect(True, turn_completed("turn-1")),
            **both_instructions("turn-1"),
            "output_returned": expect(True, equal(outputs("turn-1"), const(1))),
            "model_requests": request_count("turn-1"),
        },
    ),
    Assumption(
        id="fork-keeps-instructions",
        spec_section="5.3",
        statement="thread/fork without instruction fields gives the fork's first turn the parent's "
        "base and developer instructions and the parent's history.",
        required=True,
        scenario="fork",
        values={
            **both_instructions("turn-fork-plain"),
            "parent_history_seen": expect(True, seen("USER-1", "turn-fork-plain")),
            "base_at": where("BASE-V1", "turn-fork-plain"),
            "developer_at": where("DEV-V1", "turn-fork-plain"),
        },
    ),
    Assumption(
        id="fork-refresh",
        spec_section="5.3",
        statement="thread/fork with new instruction values does not switch the fork's first turn "
        "to the new developer instructions (as thread/resume does not): only a fresh thread "
        "applies new instructions.",
        required=False,
        scenario="fork",
        values={
            "new_developer_seen": expect(False, seen("DEV-V2", "turn-fork-new")),
            "old_developer_seen": seen("DEV-V1", "turn-fork-new"),
            "new_base_seen": seen("BASE-V2", "turn-fork-new"),
            "old_base_seen": seen("BASE-V1", "turn-fork-new"),
            "parent_history_seen": seen("USER-1", "turn-fork-new"),
        },
    ),
    Assumption(
        id="compaction-turn-completes",
        spec_section="5.1",
        statement="thread/compact/start runs a compaction whose turn ends: once codex asked the "
        "model for a compaction and its contextCompaction item completed, turn/completed arrives "
        "with status completed.",
        required=True,
        scenario="compaction-turn",
        values={
            "turn_completed": expect(True, turn_completed("compact")),
            "compaction_model_requests": request_count("compact"),
        },
    ),
    Assumption(
        id="steer-in-flight-reaches-the-turn",
        spec_section="4.6",
        statement="A turn/steer accepted while the model's answer is in flight delivers its input "
        "to that turn: the answer names the active turn, the steered input becomes an item and "
        "reaches the turn's next model request.",
        required=True,
        scenario="steer-in-flight",
        values={
            "accepted": expect(
                True, equal(answer("steer", "turnId"), answer("turn-1", "turn", "id"))
            ),
            "steered_input_became_an_item": expect(True, STEERED),
            "steered_input_reached_the_model": expect(True, seen("USER-STEER", "turn-1-done")),
            "item_before_the_in_flight_answer_ended": notified_before(STEERED, IN_FLIGHT_ANSWER),
            "in_flight_answer_became_an_item": IN_FLIGHT_ANSWER,
            "in_flight_answer_kept": equal(
                role_before("USER-STEER", "turn-1-done"), const("assistant")
            ),
        },
    ),
    Assumption(
        id="start-config-runs-turns",
        spec_section="4.6",
        statement="thread/start with a per-thread config override (model_reasoning_effort) still "
        "runs its turns to completion, both instructions reaching the model.",
        required=False,
        scenario="start-config",
        values={
            "turn_completed": expect(True, turn_completed("turn-1")),
            **both_instructions("turn-1"),
            "model_requests": request_count("turn-1"),
        },
    ),
    Assumption(
        id="cold-resume-without-developer-keeps-it",
        spec_section="6.3",
        statement="A resume after a restart that carries no developer instructions keeps the "
        "thread's developer instructions through a later compaction (found by probing: "
        "the spec does not say).",
        required=False,
        scenario="override-persistence",
        values={
            "developer_seen_before_compaction": seen("DEV-V1", "turn-3"),
            "developer_seen_after_compaction": expect(True, seen("DEV-V1", "turn-4")),
        },
    ),
)

BY_ID = {assumption.id: assumption for assumption in ASSUMPTIONS}
