"""Names of every text the compiler places, whichever file or input it comes from."""

from __future__ import annotations

from enum import StrEnum


class SourceText(StrEnum):
    # platform prompts (desktop/prompts/* in the spec)
    IDENTITY_LINE = "identity_line"
    WHO_YOU_ARE = "who_you_are"
    CHANNEL_SKILL = "channel_skill"  # split section by section into core and reference
    DAEMON_REFERENCE = "daemon_reference"
    WORKSPACE_MEMORY = "workspace_memory"
    CAPABILITIES = "capabilities"
    RUNTIME_GUIDANCE = "runtime_guidance"
    # notices and event texts
    IDENTITY_NOTICE = "identity_notice"
    MEMORY_RESUME_REMINDER = "memory_resume_reminder"
    WAKE = "wake"
    UNREAD = "unread"
    IDLE = "idle"
    DEFERRED_CONTINUATION = "deferred_continuation"
    # written by the user, kept verbatim
    WORKSPACE_IDENTITY = "workspace_identity"  # IDENTITY.md
    AGENTS_MD = "agents_md"  # AGENTS.md
    AGENT_DESCRIPTION = "agent_description"  # agent config: the initial role
    # not a source file: the message this turn delivers
    CURRENT_MESSAGE = "current_message"
