"""Compile sources into envelopes (spec 4.4): the thread contract and a turn context.

Which text goes where is looked up in `classification`; this module only makes the
blocks: it strips each text, fills in the agent's name in platform texts, puts the
compiler's heading on user-written ones, and leaves out texts that are empty.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from codex_probe.harness.compiler.blocks import (
    BLOCK_SEPARATOR,
    ENVELOPE_SLOTS,
    Block,
    EnvelopeKind,
    RuntimeInputEnvelope,
    Slot,
)
from codex_probe.harness.compiler.classification import (
    ALL_BLOCK_SPECS,
    BLOCK_SPECS_BY_ID,
    EVENT_TURN_BLOCKS,
    EVENTS_WITH_REFERENCE,
    SKILL_PART_FIRST_ORDER,
    SKILL_PART_SLOT,
    BlockSpec,
    SkillPart,
)
from codex_probe.harness.compiler.events import LifecycleEvent, parse_event
from codex_probe.harness.compiler.loading import Sources
from codex_probe.harness.compiler.skilldoc import skill_doc_sections
from codex_probe.harness.compiler.source_texts import SourceText

NAME_PLACEHOLDER = "{name}"
CURRENT_MESSAGE_BLOCK = "turn.current_message"


class CompileError(ValueError):
    """The inputs of a compilation contradict each other."""


def compile_thread_contract(sources: Sources) -> RuntimeInputEnvelope:
    """The `thread_contract` envelope: what thread/start carries as instructions."""
    slots = ENVELOPE_SLOTS[EnvelopeKind.THREAD_CONTRACT]
    blocks = [
        *_spec_blocks(sources, [spec for spec in ALL_BLOCK_SPECS if spec.slot in slots]),
        *_skill_blocks(sources, slots),
    ]
    return RuntimeInputEnvelope(kind=EnvelopeKind.THREAD_CONTRACT, event="", blocks=tuple(blocks))


def compile_turn_context(
    sources: Sources,
    event: LifecycleEvent | str,
    *,
    message: str = "",
) -> RuntimeInputEnvelope:
    """The `turn_context` envelope of a lifecycle event: reference and turn blocks."""
    lifecycle_event = parse_event(event)
    turn_ids = EVENT_TURN_BLOCKS[lifecycle_event]
    if message.strip() and CURRENT_MESSAGE_BLOCK not in turn_ids:
        raise CompileError(f"event {lifecycle_event} carries no message")
    specs = [BLOCK_SPECS_BY_ID[block_id] for block_id in turn_ids]
    reference_slots: frozenset[Slot] = frozenset()
    if lifecycle_event in EVENTS_WITH_REFERENCE:
        reference_slots = frozenset({Slot.REFERENCE})
        specs += [spec for spec in ALL_BLOCK_SPECS if spec.slot is Slot.REFERENCE]
    blocks = [
        *_spec_blocks(sources, specs, message=message),
        *_skill_blocks(sources, reference_slots),
    ]
    return RuntimeInputEnvelope(
        kind=EnvelopeKind.TURN_CONTEXT,
        event=lifecycle_event.value,
        blocks=tuple(blocks),
    )


def render_platform_text(text: str, agent_name: str) -> str:
    """Fill in the agent's name; platform texts have no other placeholder."""
    return text.replace(NAME_PLACEHOLDER, agent_name)


def _spec_blocks(
    sources: Sources,
    specs: list[BlockSpec],
    *,
    message: str = "",
) -> Iterator[Block]:
    for spec in specs:
        raw = message if spec.source is SourceText.CURRENT_MESSAGE else sources.text(spec.source)
        body = raw.strip()
        if not body:
            continue  # an absent AGENTS.md, role or message contributes no block
        if not spec.verbatim:
            body = render_platform_text(body, sources.agent.name)
        if spec.heading:
            body = spec.heading + BLOCK_SEPARATOR + body
        yield Block(
            block_id=spec.block_id,
            slot=spec.slot,
            order=spec.order,
            text=body,
            source=spec.source.value,
            spec_row=spec.spec_row,
        )


def _skill_blocks(sources: Sources, slots: frozenset[Slot]) -> Iterator[Block]:
    sections = skill_doc_sections(sources.text(SourceText.CHANNEL_SKILL))
    for part in SkillPart:
        slot = SKILL_PART_SLOT[part]
        if slot not in slots:
            continue
        part_sections = [section for section in sections if section.part is part]
        for index, section in enumerate(part_sections):
            yield Block(
                block_id=f"skill.{part.value}.{_slug(section.heading)}",
                slot=slot,
                order=SKILL_PART_FIRST_ORDER[part] + index,
                text=render_platform_text(section.text, sources.agent.name),
                source=SourceText.CHANNEL_SKILL.value,
                spec_row=f"3.3 {part.value}",
            )


def _slug(heading: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", heading.lower()).strip("_")
