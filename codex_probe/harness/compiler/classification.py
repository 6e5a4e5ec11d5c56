"""The spec's classification tables as data (sections 3.2, 3.3, 3.4, 4.4, 4.5).

Read each table beside the spec: one entry per row, in the spec's order. The slot
says where a row goes: BASE or DEVELOPER is the spec's "instructions", REFERENCE its
"turn history reference", TURN its "dynamic input". The compiler only looks rows up
here; it makes no classification decision of its own.

`order` is the block's place in the one-string prompt of non-split runtimes, which
keeps the old `buildStartPrompt()` layout: row N of table 3.2 sits at N * 1000.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from codex_probe.harness.compiler.blocks import Slot
from codex_probe.harness.compiler.events import LifecycleEvent
from codex_probe.harness.compiler.source_texts import SourceText


@dataclass(frozen=True)
class BlockSpec:
    block_id: str
    spec_row: str  # where the spec classifies this text
    spec_label: str  # the row as the spec names it
    source: SourceText
    slot: Slot
    order: int
    heading: str = ""  # user-written texts get a heading from the compiler
    verbatim: bool = False  # user-written texts are not templated ({name} stays as is)


# Table 3.2, the sections of `buildStartPrompt()`.
START_PROMPT_SECTIONS: tuple[BlockSpec, ...] = (
    BlockSpec(
        "platform.identity",
        "3.2 start #1",
        'Identity line: You are "name", an AI agent in AgentTeam.',
        SourceText.IDENTITY_LINE,
        Slot.BASE,
        1000,
    ),
    BlockSpec(
        "platform.who_you_are",
        "3.2 start #2",
        "## Who you are — persistent agent",
        SourceText.WHO_YOU_ARE,
        Slot.BASE,
        2000,
    ),
    # Row #3, the skill doc, is split section by section: see SKILL_DOC_SECTIONS.
    BlockSpec(
        "platform.workspace_memory",
        "3.2 start #4",
        "## Workspace & Memory",
        SourceText.WORKSPACE_MEMORY,
        Slot.BASE,
        4000,
    ),
    BlockSpec(
        "platform.capabilities",
        "3.2 start #5",
        "## Capabilities",
        SourceText.CAPABILITIES,
        Slot.BASE,
        5000,
    ),
    # Section 3.4: AGENTS.md goes whole into developerInstructions, whatever its size.
    BlockSpec(
        "developer.agents_md",
        "3.2 start #6, 3.4",
        "## Agent instructions — AGENTS.md",
        SourceText.AGENTS_MD,
        Slot.DEVELOPER,
        6000,
        heading="## Agent instructions",
        verbatim=True,
    ),
    BlockSpec(
        "developer.initial_role",
        "3.2 start #7",
        "## Initial role — agent description",
        SourceText.AGENT_DESCRIPTION,
        Slot.DEVELOPER,
        7000,
        heading="## Initial role",
        verbatim=True,
    ),
    BlockSpec(
        "turn.current_message",
        "3.2 start #8",
        "## Current message",
        SourceText.CURRENT_MESSAGE,
        Slot.TURN,
        8000,
        heading="## Current message",
        verbatim=True,
    ),
)

# Table 3.2, the content of the resume path (`buildResumePrompt()`): all dynamic input.
# Notices come first, then the event's own text, then the message (row #8 above).
RESUME_PATH_CONTENT: tuple[BlockSpec, ...] = (
    BlockSpec(
        "event.wake", "3.2 resume: Wake prompt", "Wake prompt", SourceText.WAKE, Slot.TURN, 7700
    ),
    BlockSpec(
        "event.unread",
        "3.2 resume: Unread prompt",
        "Unread prompt",
        SourceText.UNREAD,
        Slot.TURN,
        7700,
    ),
    BlockSpec(
        "event.idle", "3.2 resume: Idle prompt", "Idle prompt", SourceText.IDLE, Slot.TURN, 7700
    ),
    BlockSpec(
        "notice.identity",
        "3.2 resume: Identity notice",
        "Identity notice",
        SourceText.IDENTITY_NOTICE,
        Slot.TURN,
        7500,
    ),
    BlockSpec(
        "notice.memory_resume",
        "3.2 resume: Memory resume reminder",
        "Memory resume reminder",
        SourceText.MEMORY_RESUME_REMINDER,
        Slot.TURN,
        7600,
    ),
)

# Section 4.4: what baseInstructions holds besides the rows of table 3.2.
BASE_ADDITIONS: tuple[BlockSpec, ...] = (
    BlockSpec(
        "platform.runtime_guidance",
        "4.4 baseInstructions",
        "runtime guidance",
        SourceText.RUNTIME_GUIDANCE,
        Slot.BASE,
        5100,
    ),
    BlockSpec(
        "workspace.identity_md",
        "4.4 baseInstructions",
        "IDENTITY.md",
        SourceText.WORKSPACE_IDENTITY,
        Slot.BASE,
        5200,
        heading="## Workspace identity (IDENTITY.md)",
        verbatim=True,
    ),
)

# Section 4.4: the daemon reference is a reference block, like the skill doc's reference.
REFERENCE_ADDITIONS: tuple[BlockSpec, ...] = (
    BlockSpec(
        "platform.daemon_reference",
        "4.4 reference blocks",
        "daemon reference",
        SourceText.DAEMON_REFERENCE,
        Slot.REFERENCE,
        3900,
    ),
)

# Section 4.5: the deferred-continuation text is dynamic input like the wake text.
TURN_ADDITIONS: tuple[BlockSpec, ...] = (
    BlockSpec(
        "event.deferred_continuation",
        "4.5 ResumePrompt: deferred text",
        "deferred continuation text",
        SourceText.DEFERRED_CONTINUATION,
        Slot.TURN,
        7700,
    ),
)

ALL_BLOCK_SPECS: tuple[BlockSpec, ...] = (
    START_PROMPT_SECTIONS
    + RESUME_PATH_CONTENT
    + BASE_ADDITIONS
    + REFERENCE_ADDITIONS
    + TURN_ADDITIONS
)
BLOCK_SPECS_BY_ID: Mapping[str, BlockSpec] = {spec.block_id: spec for spec in ALL_BLOCK_SPECS}


class SkillPart(StrEnum):
    CORE = "core"  # a hard rule: goes into baseInstructions
    REFERENCE = "reference"  # a manual: goes into the first turn, may be compacted


@dataclass(frozen=True)
class SkillSectionRule:
    heading: str  # the section's "## " heading in the channel skill doc
    part: SkillPart
    spec_label: str  # the section as spec 3.3 names it


# Section 3.3, the split of the channel skill doc: first the core invariants, then the
# reference manual, each in the spec's order.
SKILL_DOC_SECTIONS: tuple[SkillSectionRule, ...] = (
    SkillSectionRule(
        "Communication — MCP tools ONLY",
        SkillPart.CORE,
        "Communication — MCP tools ONLY (heading + CRITICAL RULES)",
    ),
    SkillSectionRule("Startup sequence", SkillPart.CORE, "Startup sequence"),
    SkillSectionRule("Task boards — core rules", SkillPart.CORE, "Task boards — core rules"),
    SkillSectionRule("Communication style", SkillPart.CORE, "Communication style"),
    SkillSectionRule("Conversation etiquette", SkillPart.CORE, "Conversation etiquette"),
    SkillSectionRule("Message delivery", SkillPart.CORE, "Message Delivery — core rules"),
    SkillSectionRule("Local workspace memory", SkillPart.CORE, "Local workspace memory"),
    SkillSectionRule("Communication — tool list", SkillPart.REFERENCE, "Communication — tool list"),
    SkillSectionRule(
        "Messaging — message format", SkillPart.REFERENCE, "Messaging — message format examples"
    ),
    SkillSectionRule(
        "Sending messages — syntax", SkillPart.REFERENCE, "Sending messages — syntax examples"
    ),
    SkillSectionRule("Threads", SkillPart.REFERENCE, "Threads — details"),
    SkillSectionRule(
        "Discovering people and channel scopes",
        SkillPart.REFERENCE,
        "Discovering people and channel scopes",
    ),
    SkillSectionRule("Channel awareness", SkillPart.REFERENCE, "Channel awareness"),
    SkillSectionRule(
        "Reading history — syntax", SkillPart.REFERENCE, "Reading history — syntax examples"
    ),
    SkillSectionRule(
        "Task boards — protocol", SkillPart.REFERENCE, "Task boards — detailed protocol"
    ),
    SkillSectionRule("@Mentions", SkillPart.REFERENCE, "@Mentions — details"),
    SkillSectionRule(
        "Broadcast and task-notify protocol",
        SkillPart.REFERENCE,
        "Broadcast and task-notify protocol",
    ),
    SkillSectionRule("Formatting — No HTML", SkillPart.REFERENCE, "Formatting — No HTML"),
    SkillSectionRule(
        "Formatting — URLs in non-English text",
        SkillPart.REFERENCE,
        "Formatting — URLs in non-English text",
    ),
)
SKILL_RULES_BY_HEADING: Mapping[str, SkillSectionRule] = {
    rule.heading: rule for rule in SKILL_DOC_SECTIONS
}

# Where each part of the skill doc goes, and where its sections start in block order
# (row #3 of table 3.2: core sections, then reference sections, then the daemon's).
SKILL_PART_SLOT: Mapping[SkillPart, Slot] = {
    SkillPart.CORE: Slot.BASE,
    SkillPart.REFERENCE: Slot.REFERENCE,
}
SKILL_PART_FIRST_ORDER: Mapping[SkillPart, int] = {
    SkillPart.CORE: 3000,
    SkillPart.REFERENCE: 3400,
}

# Section 4.5 and table 3.2 (resume path): the turn input of each lifecycle event, by
# block id. Notices and the event's text stay in the lean ResumePrompt; only the idle
# event carries no message (its text tells the agent to stop).
EVENT_TURN_BLOCKS: Mapping[LifecycleEvent, tuple[str, ...]] = {
    LifecycleEvent.FRESH_START: ("turn.current_message",),
    LifecycleEvent.WAKE: (
        "notice.identity",
        "notice.memory_resume",
        "event.wake",
        "turn.current_message",
    ),
    LifecycleEvent.RESUME: (
        "notice.identity",
        "notice.memory_resume",
        "event.unread",
        "turn.current_message",
    ),
    LifecycleEvent.DEFERRED_CONTINUATION: (
        "notice.identity",
        "notice.memory_resume",
        "event.deferred_continuation",
        "turn.current_message",
    ),
    LifecycleEvent.IDLE: ("notice.identity", "event.idle"),
}

# Section 4.5: the events whose turn context carries the reference blocks (FreshPrompt
# keeps them; ResumePrompt drops them). The spec names fresh_start, wake, resume and
# deferred_continuation; idle keeps them too, because an idle resume that falls back to
# a fresh thread would otherwise start a thread with no reference material at all.
EVENTS_WITH_REFERENCE: frozenset[LifecycleEvent] = frozenset(LifecycleEvent)
