"""Blocks, slots and envelopes: the compiler's output types.

Every piece of prompt text becomes a `Block` with a slot (where it goes), a stable
id (so a test or a probe can find it) and an order. The order is the block's place
in the one-string prompt that non-split runtimes receive; within a slot, blocks are
materialized in that same order, so both renderings agree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

# Blocks are separated the way the skill doc joins its parts (spec 4.3).
BLOCK_SEPARATOR = "\n\n"


class Slot(StrEnum):
    """Where a block ends up (spec 4.4)."""

    BASE = "base"  # thread/start baseInstructions: platform invariants
    DEVELOPER = "developer"  # thread/start developerInstructions: AGENTS.md, role
    REFERENCE = "reference"  # first turn's input, may be compacted away
    TURN = "turn"  # dynamic input of this turn


class EnvelopeKind(StrEnum):
    THREAD_CONTRACT = "thread_contract"  # base + developer slots
    TURN_CONTEXT = "turn_context"  # reference + turn slots


ENVELOPE_SLOTS: dict[EnvelopeKind, frozenset[Slot]] = {
    EnvelopeKind.THREAD_CONTRACT: frozenset({Slot.BASE, Slot.DEVELOPER}),
    EnvelopeKind.TURN_CONTEXT: frozenset({Slot.REFERENCE, Slot.TURN}),
}


@dataclass(frozen=True)
class Block:
    block_id: str
    slot: Slot
    order: int
    text: str
    source: str  # the source text it was made from, for tracing a block to its file
    spec_row: str  # the row of the spec's tables that classifies it


def render_blocks(blocks: Iterable[Block]) -> str:
    """Materialize blocks into one string, in block order."""
    return BLOCK_SEPARATOR.join(block.text for block in sorted(blocks, key=_order_key))


def _order_key(block: Block) -> tuple[int, str]:
    return (block.order, block.block_id)


@dataclass(frozen=True)
class RuntimeInputEnvelope:
    """A compiled envelope: the blocks of one kind, sorted by order."""

    kind: EnvelopeKind
    event: str  # the lifecycle event a turn context was compiled for; "" for a contract
    blocks: tuple[Block, ...]

    def __post_init__(self) -> None:
        allowed = ENVELOPE_SLOTS[self.kind]
        stray = [block.block_id for block in self.blocks if block.slot not in allowed]
        if stray:
            raise ValueError(f"{self.kind} envelope cannot hold blocks {stray}")
        ids = [block.block_id for block in self.blocks]
        if len(ids) != len(set(ids)):
            raise ValueError(f"{self.kind} envelope has duplicate block ids: {ids}")
        object.__setattr__(self, "blocks", tuple(sorted(self.blocks, key=_order_key)))

    def slot_blocks(self, slot: Slot) -> tuple[Block, ...]:
        return tuple(block for block in self.blocks if block.slot is slot)

    def slot_text(self, slot: Slot) -> str:
        return render_blocks(self.slot_blocks(slot))

    def text(self) -> str:
        return render_blocks(self.blocks)

    def without_slot(self, slot: Slot) -> RuntimeInputEnvelope:
        kept = tuple(block for block in self.blocks if block.slot is not slot)
        return RuntimeInputEnvelope(kind=self.kind, event=self.event, blocks=kept)
