"""Properties of the compiler over generated sources, events and messages."""

from __future__ import annotations

from hypothesis import given

from codex_probe.harness.compiler import (
    LifecycleEvent,
    Sources,
    compile_thread_contract,
    compile_turn_context,
)
from tests.compiler.marked_sources import event_and_message, expected_markers, random_sources


def all_block_texts(sources: Sources, event: LifecycleEvent, message: str) -> str:
    contract = compile_thread_contract(sources)
    turn = compile_turn_context(sources, event, message=message)
    return "\n".join(block.text for block in contract.blocks + turn.blocks)


@given(random_sources(), event_and_message())
def test_no_source_text_is_lost_or_duplicated_across_blocks(
    sources: Sources,
    event_message: tuple[LifecycleEvent, str],
) -> None:
    event, message = event_message
    text = all_block_texts(sources, event, message)
    assert {mark: text.count(mark) for mark in expected_markers(event, message)} == (
        expected_markers(event, message)
    )


@given(random_sources(), event_and_message())
def test_block_ids_are_unique_across_both_envelopes(
    sources: Sources,
    event_message: tuple[LifecycleEvent, str],
) -> None:
    event, message = event_message
    contract = compile_thread_contract(sources)
    turn = compile_turn_context(sources, event, message=message)
    ids = [block.block_id for block in contract.blocks + turn.blocks]
    assert len(ids) == len(set(ids))


@given(random_sources(), event_and_message())
def test_compiling_twice_gives_identical_envelopes(
    sources: Sources,
    event_message: tuple[LifecycleEvent, str],
) -> None:
    event, message = event_message
    assert compile_thread_contract(sources) == compile_thread_contract(sources)
    first = compile_turn_context(sources, event, message=message)
    second = compile_turn_context(sources, event, message=message)
    assert first.text().encode() == second.text().encode()
    assert first == second
