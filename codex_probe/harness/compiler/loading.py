"""Sources: the texts the compiler reads, and loading them from a folder.

A sources folder holds one file per text (the table `SOURCE_FILES`) and the agent
config `agent.toml`. The packaged defaults live in `codex_probe/harness/compiler/sources/`; a user
points at a folder of their own with the same layout.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from codex_probe.harness.compiler.skilldoc import SkillDocError, skill_doc_sections
from codex_probe.harness.compiler.source_texts import SourceText

DEFAULT_SOURCES_PACKAGE = "codex_probe.harness.compiler.sources"
AGENT_CONFIG_FILE = "agent.toml"
DEFAULT_PERMISSION_MODE = "agent_workspace_write"


@dataclass(frozen=True)
class SourceFile:
    text: SourceText
    path: str  # relative to the sources folder
    # Platform texts must exist and say something. Workspace and developer docs may be
    # absent: a deleted AGENTS.md means empty developer instructions (spec 4.2).
    required: bool


SOURCE_FILES: tuple[SourceFile, ...] = (
    SourceFile(SourceText.IDENTITY_LINE, "identity_line.md", required=True),
    SourceFile(SourceText.WHO_YOU_ARE, "who_you_are.md", required=True),
    SourceFile(SourceText.CHANNEL_SKILL, "channel_skill.md", required=True),
    SourceFile(SourceText.DAEMON_REFERENCE, "daemon_reference.md", required=True),
    SourceFile(SourceText.WORKSPACE_MEMORY, "workspace_memory.md", required=True),
    SourceFile(SourceText.CAPABILITIES, "capabilities.md", required=True),
    SourceFile(SourceText.RUNTIME_GUIDANCE, "runtime_guidance.md", required=True),
    SourceFile(SourceText.IDENTITY_NOTICE, "notice_identity.md", required=True),
    SourceFile(SourceText.MEMORY_RESUME_REMINDER, "notice_memory_resume.md", required=True),
    SourceFile(SourceText.WAKE, "event_wake.md", required=True),
    SourceFile(SourceText.UNREAD, "event_unread.md", required=True),
    # Non-empty by construction: an idle resume still sends a turn (spec 4.7).
    SourceFile(SourceText.IDLE, "event_idle.md", required=True),
    SourceFile(SourceText.DEFERRED_CONTINUATION, "event_deferred_continuation.md", required=True),
    SourceFile(SourceText.WORKSPACE_IDENTITY, "IDENTITY.md", required=False),
    SourceFile(SourceText.AGENTS_MD, "AGENTS.md", required=False),
)


class SourcesError(Exception):
    """A sources folder the compiler cannot use; the message names the file."""


@dataclass(frozen=True)
class AgentConfig:
    name: str
    description: str = ""  # the initial role
    permission_mode: str = DEFAULT_PERMISSION_MODE  # carried to StartConfig for the driver


@dataclass(frozen=True)
class Sources:
    agent: AgentConfig
    texts: Mapping[SourceText, str] = field(default_factory=dict)
    location: str = ""  # where they were loaded from, for messages

    def text(self, key: SourceText) -> str:
        if key is SourceText.AGENT_DESCRIPTION:
            return self.agent.description
        return self.texts.get(key, "")

    def with_text(self, key: SourceText, value: str) -> Sources:
        if key is SourceText.AGENT_DESCRIPTION:
            return replace(self, agent=replace(self.agent, description=value))
        return replace(self, texts={**self.texts, key: value})


def load_sources(path: Path | None = None) -> Sources:
    """Read a sources folder; None means the packaged defaults."""
    root: Traversable = files(DEFAULT_SOURCES_PACKAGE) if path is None else path
    location = "packaged default sources" if path is None else str(path)
    if path is not None and not path.is_dir():
        problem = "does not exist" if not path.exists() else "is not a folder"
        raise SourcesError(f"sources folder {path} {problem}")
    texts = {source.text: _read_source_file(root, source) for source in SOURCE_FILES}
    try:
        skill_doc_sections(texts[SourceText.CHANNEL_SKILL])
    except SkillDocError as error:
        raise SourcesError(f"{_describe(root, 'channel_skill.md')}: {error}") from None
    agent = _parse_agent_config(root)
    return Sources(agent=agent, texts=texts, location=location)


def _read_source_file(root: Traversable, source: SourceFile) -> str:
    entry = root.joinpath(source.path)
    if not entry.is_file():
        if source.required:
            raise SourcesError(f"missing source file {_describe(root, source.path)}")
        return ""
    text = _read_text(root, source.path).strip()
    if source.required and not text:
        raise SourcesError(f"source file {_describe(root, source.path)} is empty")
    return text


def _read_text(root: Traversable, relative: str) -> str:
    try:
        return root.joinpath(relative).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SourcesError(f"source file {_describe(root, relative)} is not UTF-8") from None
    except OSError as error:
        reason = error.strerror or type(error).__name__
        where = _describe(root, relative)
        raise SourcesError(f"cannot read source file {where}: {reason}") from None


def _parse_agent_config(root: Traversable) -> AgentConfig:
    where = _describe(root, AGENT_CONFIG_FILE)
    if not root.joinpath(AGENT_CONFIG_FILE).is_file():
        raise SourcesError(f"missing source file {where}")
    try:
        data = tomllib.loads(_read_text(root, AGENT_CONFIG_FILE))
    except tomllib.TOMLDecodeError as error:
        raise SourcesError(f"{where}: invalid TOML: {error}") from None
    unknown = sorted(set(data) - {"name", "description", "permission_mode"})
    if unknown:
        raise SourcesError(f"{where}: unknown keys {', '.join(unknown)}")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SourcesError(f"{where}: 'name' must be a non-empty string")
    description = data.get("description", "")
    permission_mode = data.get("permission_mode", DEFAULT_PERMISSION_MODE)
    if not isinstance(description, str):
        raise SourcesError(f"{where}: 'description' must be a string")
    if not isinstance(permission_mode, str) or not permission_mode.strip():
        raise SourcesError(f"{where}: 'permission_mode' must be a non-empty string")
    return AgentConfig(
        name=name.strip(),
        description=description.strip(),
        permission_mode=permission_mode.strip(),
    )


def _describe(root: Traversable, relative: str) -> str:
    return str(root.joinpath(relative))
