"""StartConfig: everything a driver needs to start or resume an agent (spec 4.2)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class McpConfig:
    """How the runtime reaches the AgentTeam MCP server.

    This is wiring, never instructions: none of it enters the instruction fingerprint
    (spec 6.3), so a moved endpoint or a new tool does not force a fresh thread.
    """

    server_name: str = ""
    url: str = ""
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    tools: tuple[str, ...] = ()  # the tool surface the server exposes


@dataclass(frozen=True)
class StartConfig:
    agent_id: str
    # One-string prompt of non-split runtimes (claude, opencode); empty for codex.
    prompt: str = ""
    # Turn input of a fresh thread, fallback threads included: reference + dynamic input.
    fresh_prompt: str = ""
    # Lean turn input after a successful resume; empty when there is no session to resume.
    resume_prompt: str = ""
    # thread/start instructions of codex: platform invariants, and the agent's own.
    base_instructions: str = ""
    developer_instructions: str = ""
    mcp: McpConfig = field(default_factory=McpConfig)
    session_id: str = ""
    work_dir: str = ""
    binary: str = ""
    model: str = ""
    reasoning_effort: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    initial_delivery_message_id: str = ""
    # Not in the spec's struct: the implementation note derives codex's sandbox from the
    # agent's permissionMode, and the driver only sees the StartConfig, so it rides here.
    permission_mode: str = ""

    def to_json_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["env"] = dict(self.env)
        data["mcp"]["env"] = dict(self.mcp.env)
        data["mcp"]["args"] = list(self.mcp.args)
        data["mcp"]["tools"] = list(self.mcp.tools)
        return data
