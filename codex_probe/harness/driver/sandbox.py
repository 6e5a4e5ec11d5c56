"""An agent's permissionMode -> codex's sandbox, in all three places codex takes it.

From the spec's implementation note: the app-server's config (`sandbox_mode`),
`thread/start` / `thread/resume` (`sandbox`) and `turn/start` (`sandboxPolicy`).
`permissionProfile` is never sent. The shapes are those of the 0.171.0 schema:
`SandboxMode` is a kebab-case string, `SandboxPolicy` a camelCase tagged object whose
`writableRoots` must be absolute paths (0.171.0 refuses a relative one with
"AbsolutePathBuf deserialized without a base path").

Every check here runs before anything is sent or spawned, so a bad mode or work dir
is a clear error instead of a half-started agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import PurePosixPath
from typing import Any

# A persistent agent has nobody to ask: it must never stop for an approval prompt.
APPROVAL_POLICY = "never"


class PermissionMode(StrEnum):
    FULL_ACCESS = "full_access"
    AGENT_WORKSPACE_WRITE = "agent_workspace_write"


class SandboxConfigError(ValueError):
    """The StartConfig cannot be mapped onto a codex sandbox (nothing was sent)."""


class UnknownPermissionModeError(SandboxConfigError):
    def __init__(self, mode: str) -> None:
        known = ", ".join(mode.value for mode in PermissionMode)
        super().__init__(
            f"unknown permissionMode {mode!r} (known modes: {known}); nothing was sent"
        )
        self.mode = mode


@dataclass(frozen=True)
class SandboxSettings:
    mode: PermissionMode
    # `-c` override for the app-server command line (TOML value syntax).
    config_override: str
    # `sandbox` of thread/start and thread/resume.
    thread_sandbox: str
    # `sandboxPolicy` of turn/start.
    turn_sandbox_policy: dict[str, Any]


def parse_permission_mode(mode: str) -> PermissionMode:
    try:
        return PermissionMode(mode.strip())
    except ValueError:
        raise UnknownPermissionModeError(mode) from None


def sandbox_settings(permission_mode: str, work_dir: str) -> SandboxSettings:
    """The sandbox of one agent; `work_dir` is its working directory (absolute)."""
    mode = parse_permission_mode(permission_mode)
    if mode is PermissionMode.FULL_ACCESS:
        return SandboxSettings(
            mode=mode,
            config_override='sandbox_mode="danger-full-access"',
            thread_sandbox="danger-full-access",
            turn_sandbox_policy={"type": "dangerFullAccess"},
        )
    if not work_dir.strip() or not PurePosixPath(work_dir).is_absolute():
        raise SandboxConfigError(
            f"permissionMode {mode.value} needs an absolute workDir for writableRoots, "
            f"got {work_dir!r}; nothing was sent"
        )
    return SandboxSettings(
        mode=mode,
        config_override='sandbox_mode="workspace-write"',
        thread_sandbox="workspace-write",
        turn_sandbox_policy={"type": "workspaceWrite", "writableRoots": [work_dir]},
    )
