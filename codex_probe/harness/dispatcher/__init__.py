"""Dispatcher: StartConfig mapping, instruction fingerprint, resume policy (spec 4.2-4.5, 6)."""

from codex_probe.harness.dispatcher.fingerprint import (
    fingerprints_match,
    instruction_fingerprint,
    strip_legacy_mcp_suffix,
    thread_contract_fingerprint,
)
from codex_probe.harness.dispatcher.mapping import (
    build_start_config,
    full_prompt,
    without_turn_context_references,
)
from codex_probe.harness.dispatcher.resume_policy import (
    ResumeDecision,
    ResumeReason,
    SessionRecord,
    validate_session_resume,
)
from codex_probe.harness.dispatcher.runtime import (
    SPLIT_RUNTIMES,
    Runtime,
    UnknownRuntimeError,
    is_split_runtime,
    parse_runtime,
    runtime_policy,
)
from codex_probe.harness.dispatcher.start_config import McpConfig, StartConfig

__all__ = [
    "SPLIT_RUNTIMES",
    "McpConfig",
    "ResumeDecision",
    "ResumeReason",
    "Runtime",
    "SessionRecord",
    "StartConfig",
    "UnknownRuntimeError",
    "build_start_config",
    "fingerprints_match",
    "full_prompt",
    "instruction_fingerprint",
    "is_split_runtime",
    "parse_runtime",
    "runtime_policy",
    "strip_legacy_mcp_suffix",
    "thread_contract_fingerprint",
    "validate_session_resume",
    "without_turn_context_references",
]
