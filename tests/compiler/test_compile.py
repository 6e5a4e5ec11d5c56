from __future__ import annotations

import pytest

from codex_probe.harness.compiler import (
    Block,
    CompileError,
    EnvelopeKind,
    LifecycleEvent,
    RuntimeInputEnvelope,
    Slot,
    SourceText,
    UnknownEventError,
    compile_thread_contract,
    compile_turn_context,
    load_sources,
)
from tests.compiler.marked_sources import marked_sources, marker

# Spec 3.2 (resume path) and 4.5: the dynamic input of each event, in order.
EXPECTED_TURN_TEXTS = {
    LifecycleEvent.FRESH_START: [SourceText.CURRENT_MESSAGE],
    LifecycleEvent.WAKE: [
        SourceText.IDENTITY_NOTICE,
        SourceText.MEMORY_RESUME_REMINDER,
        SourceText.WAKE,
        SourceText.CURRENT_MESSAGE,
    ],
    LifecycleEvent.RESUME: [
        SourceText.IDENTITY_NOTICE,
        SourceText.MEMORY_RESUME_REMINDER,
        SourceText.UNREAD,
        SourceText.CURRENT_MESSAGE,
    ],
    LifecycleEvent.DEFERRED_CONTINUATION: [
        SourceText.IDENTITY_NOTICE,
        SourceText.MEMORY_RESUME_REMINDER,
        SourceText.DEFERRED_CONTINUATION,
        SourceText.CURRENT_MESSAGE,
    ],
    LifecycleEvent.IDLE: [SourceText.IDENTITY_NOTICE, SourceText.IDLE],
}


def test_thread_contract_envelope_holds_only_base_and_developer_blocks() -> None:
    contract = compile_thread_contract(load_sources())
    assert contract.kind is EnvelopeKind.THREAD_CONTRACT
    assert {block.slot for block in contract.blocks} == {Slot.BASE, Slot.DEVELOPER}


@pytest.mark.parametrize("event", list(LifecycleEvent))
def test_turn_context_envelope_holds_only_reference_and_turn_blocks(
    event: LifecycleEvent,
) -> None:
    message = "" if event is LifecycleEvent.IDLE else "hello"
    turn = compile_turn_context(load_sources(), event, message=message)
    assert turn.kind is EnvelopeKind.TURN_CONTEXT
    assert turn.event == event.value
    assert {block.slot for block in turn.blocks} == {Slot.REFERENCE, Slot.TURN}


@pytest.mark.parametrize("event", list(LifecycleEvent))
def test_each_event_carries_its_notices_and_text_in_order(event: LifecycleEvent) -> None:
    message = "" if event is LifecycleEvent.IDLE else "MARK<current_message>"
    turn = compile_turn_context(marked_sources(), event, message=message)
    sources_of_turn_blocks = [block.source for block in turn.slot_blocks(Slot.TURN)]
    assert sources_of_turn_blocks == [text.value for text in EXPECTED_TURN_TEXTS[event]]


def test_blocks_have_stable_ids_a_probe_can_look_up() -> None:
    contract = compile_thread_contract(load_sources())
    turn = compile_turn_context(load_sources(), LifecycleEvent.WAKE, message="hi")
    ids = [block.block_id for block in contract.blocks + turn.blocks]
    for expected in (
        "platform.identity",
        "skill.core.startup_sequence",
        "developer.agents_md",
        "skill.reference.threads",
        "platform.daemon_reference",
        "event.wake",
        "turn.current_message",
    ):
        assert expected in ids


def test_agent_name_fills_platform_texts_but_user_docs_stay_verbatim() -> None:
    sources = (
        load_sources()
        .with_text(SourceText.AGENTS_MD, "Sign as {name}.")
        .with_text(SourceText.WHO_YOU_ARE, "## Who you are\n\nYou are {name}.")
    )
    base = compile_thread_contract(sources).slot_text(Slot.BASE)
    developer = compile_thread_contract(sources).slot_text(Slot.DEVELOPER)
    assert base.startswith('You are "probe-agent", an AI agent in AgentTeam.')
    assert "You are probe-agent." in base
    assert "Sign as {name}." in developer


def test_user_written_texts_get_the_compiler_heading() -> None:
    developer = compile_thread_contract(marked_sources()).slot_text(Slot.DEVELOPER)
    assert developer == (
        f"## Agent instructions\n\n{marker(SourceText.AGENTS_MD)}\n\n"
        f"## Initial role\n\n{marker(SourceText.AGENT_DESCRIPTION)}"
    )


def test_empty_agents_md_and_role_contribute_no_block() -> None:
    sources = (
        marked_sources()
        .with_text(SourceText.AGENTS_MD, "  \n")
        .with_text(SourceText.AGENT_DESCRIPTION, "")
    )
    assert compile_thread_contract(sources).slot_blocks(Slot.DEVELOPER) == ()


def test_fresh_start_without_a_message_still_carries_the_reference_manual() -> None:
    turn = compile_turn_context(load_sources(), LifecycleEvent.FRESH_START)
    assert turn.slot_blocks(Slot.TURN) == ()
    assert "## Communication — tool list" in turn.text()


def test_a_message_for_the_idle_event_is_refused() -> None:
    with pytest.raises(CompileError, match="event idle carries no message"):
        compile_turn_context(load_sources(), LifecycleEvent.IDLE, message="hello")


def test_an_unknown_event_is_refused_by_name() -> None:
    with pytest.raises(UnknownEventError, match="unknown event 'sleep'"):
        compile_turn_context(load_sources(), "sleep")


def test_an_envelope_refuses_a_block_of_a_foreign_slot() -> None:
    block = Block("x", Slot.TURN, 1, "text", "test", "none")
    with pytest.raises(ValueError, match="thread_contract envelope cannot hold blocks"):
        RuntimeInputEnvelope(kind=EnvelopeKind.THREAD_CONTRACT, event="", blocks=(block,))


def test_an_envelope_refuses_two_blocks_with_one_id() -> None:
    block = Block("x", Slot.TURN, 1, "text", "test", "none")
    with pytest.raises(ValueError, match="duplicate block ids"):
        RuntimeInputEnvelope(kind=EnvelopeKind.TURN_CONTEXT, event="", blocks=(block, block))
