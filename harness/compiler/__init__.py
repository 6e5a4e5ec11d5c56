"""Prompt compiler: sources -> blocks (slot) -> RuntimeInputEnvelope (spec 4.1-4.4)."""

from harness.compiler.blocks import (
    Block,
    EnvelopeKind,
    RuntimeInputEnvelope,
    Slot,
    render_blocks,
)
from harness.compiler.compile import (
    CompileError,
    compile_thread_contract,
    compile_turn_context,
    render_platform_text,
)
from harness.compiler.events import LifecycleEvent, UnknownEventError, parse_event
from harness.compiler.loading import (
    SOURCE_FILES,
    AgentConfig,
    SourceFile,
    Sources,
    SourcesError,
    load_sources,
)
from harness.compiler.skilldoc import (
    SkillDocError,
    SkillDocParts,
    SkillSection,
    skill_doc,
    skill_doc_sections,
    skill_doc_split,
)
from harness.compiler.source_texts import SourceText

__all__ = [
    "SOURCE_FILES",
    "AgentConfig",
    "Block",
    "CompileError",
    "EnvelopeKind",
    "LifecycleEvent",
    "RuntimeInputEnvelope",
    "SkillDocError",
    "SkillDocParts",
    "SkillSection",
    "Slot",
    "SourceFile",
    "SourceText",
    "Sources",
    "SourcesError",
    "UnknownEventError",
    "compile_thread_contract",
    "compile_turn_context",
    "load_sources",
    "parse_event",
    "render_blocks",
    "render_platform_text",
    "skill_doc",
    "skill_doc_sections",
    "skill_doc_split",
]
