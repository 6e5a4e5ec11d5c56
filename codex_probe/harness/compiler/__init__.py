"""Prompt compiler: sources -> blocks (slot) -> RuntimeInputEnvelope (spec 4.1-4.4)."""

from codex_probe.harness.compiler.blocks import (
    Block,
    EnvelopeKind,
    RuntimeInputEnvelope,
    Slot,
    render_blocks,
)
from codex_probe.harness.compiler.compile import (
    CompileError,
    compile_thread_contract,
    compile_turn_context,
    render_platform_text,
)
from codex_probe.harness.compiler.events import LifecycleEvent, UnknownEventError, parse_event
from codex_probe.harness.compiler.loading import (
    SOURCE_FILES,
    AgentConfig,
    SourceFile,
    Sources,
    SourcesError,
    load_sources,
)
from codex_probe.harness.compiler.skilldoc import (
    SkillDocError,
    SkillDocParts,
    SkillSection,
    skill_doc,
    skill_doc_sections,
    skill_doc_split,
)
from codex_probe.harness.compiler.source_texts import SourceText

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
