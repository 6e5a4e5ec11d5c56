"""The params of every request the driver sends, as pure functions of the StartConfig.

Checked against the codex-cli 0.171.0 schema (v2/ThreadStartParams.json,
ThreadResumeParams.json, TurnStartParams.json, TurnSteerParams.json).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codex_probe.harness.dispatcher import StartConfig
from codex_probe.harness.driver.sandbox import (
    APPROVAL_POLICY,
    SandboxSettings,
    sandbox_settings,
)


@dataclass(frozen=True)
class TurnRequest:
    method: str  # turn/start or turn/steer
    params: dict[str, Any]


def text_input(text: str) -> list[dict[str, Any]]:
    """A message body as turn input: one text item, the body exactly as given."""
    return [{"type": "text", "text": text}]


def thread_start_params(
    config: StartConfig, sandbox: SandboxSettings | None = None
) -> dict[str, Any]:
    """thread/start (spec 4.6 startThread).

    Each instruction field is sent only when it has non-whitespace content: an empty
    `baseInstructions` is not "no override" upstream, so omitting it is the only way
    to ask for the default. What an empty string does is left to the probes. `sandbox`:
    the settings the caller already made of the config's permission mode.
    """
    settings = sandbox or sandbox_settings(config.permission_mode, config.work_dir)
    params: dict[str, Any] = {}
    if config.work_dir.strip():
        params["cwd"] = config.work_dir
    params["sandbox"] = settings.thread_sandbox
    params["approvalPolicy"] = APPROVAL_POLICY
    if config.model.strip():
        params["model"] = config.model
    if config.base_instructions.strip():
        params["baseInstructions"] = config.base_instructions
    if config.developer_instructions.strip():
        params["developerInstructions"] = config.developer_instructions
    return params


def thread_resume_params(
    config: StartConfig, thread_id: str, sandbox: SandboxSettings | None = None
) -> dict[str, Any]:
    """thread/resume (spec 4.6 resumeThread): always the current instruction strings.

    Empty ones included, as the spec's clearing semantics say; upstream may ignore them
    (spec 5.3), which is why instruction changes go through the fingerprint policy.
    """
    settings = sandbox or sandbox_settings(config.permission_mode, config.work_dir)
    params: dict[str, Any] = {
        "threadId": thread_id,
        "sandbox": settings.thread_sandbox,
        "approvalPolicy": APPROVAL_POLICY,
    }
    if config.work_dir.strip():
        params["cwd"] = config.work_dir
    if config.model.strip():
        params["model"] = config.model
    params["baseInstructions"] = config.base_instructions
    params["developerInstructions"] = config.developer_instructions
    return params


def start_turn_params(
    text: str, thread_id: str, sandbox_policy: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """turn/start, or None when there is no thread or nothing to say (spec 4.7).

    Whitespace-only text counts as empty, as in the spec's Go (TrimSpace); any other
    text is sent byte for byte.
    """
    if not thread_id.strip() or not text.strip():
        return None
    params: dict[str, Any] = {"threadId": thread_id, "input": text_input(text)}
    if sandbox_policy is not None:
        params["sandboxPolicy"] = sandbox_policy
    return params


def steer_turn_params(text: str, thread_id: str, turn_id: str) -> dict[str, Any] | None:
    """turn/steer into the active turn `turn_id`; None under the same rule as turn/start."""
    if not thread_id.strip() or not text.strip() or not turn_id:
        return None
    return {"threadId": thread_id, "input": text_input(text), "expectedTurnId": turn_id}
