"""Map compiler output onto StartConfig (spec 4.4, 4.5, 6.1; `prompt_compiler.go`).

For codex both prompts are always prepared, because only the driver learns whether
the session really resumes: a resume that falls back to a fresh thread must still get
the reference material, so `fresh_prompt` carries it and `resume_prompt` does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from codex_probe.harness.compiler import (
    LifecycleEvent,
    RuntimeInputEnvelope,
    Slot,
    Sources,
    compile_thread_contract,
    compile_turn_context,
    render_blocks,
)
from codex_probe.harness.dispatcher.runtime import Runtime, is_split_runtime
from codex_probe.harness.dispatcher.start_config import McpConfig, StartConfig


def without_turn_context_references(envelope: RuntimeInputEnvelope) -> RuntimeInputEnvelope:
    """The turn context minus its compactable reference blocks (skill doc reference,
    daemon reference): what a direct resume delivers, since the thread already has them."""
    return envelope.without_slot(Slot.REFERENCE)


def full_prompt(contract: RuntimeInputEnvelope, turn: RuntimeInputEnvelope) -> str:
    """The one-string prompt of non-split runtimes: every block, in block order, which is
    the layout of the old `buildStartPrompt()` (the skill doc whole, as `SkillDoc()`)."""
    return render_blocks(contract.blocks + turn.blocks)


def build_start_config(
    sources: Sources,
    *,
    event: LifecycleEvent | str,
    runtime: Runtime | str = Runtime.CODEX,
    session_id: str = "",
    message: str = "",
    work_dir: str = "",
    mcp: McpConfig | None = None,
    binary: str = "",
    model: str = "",
    reasoning_effort: str = "",
    env: Mapping[str, str] | None = None,
    initial_delivery_message_id: str = "",
    permission_mode: str = "",
) -> StartConfig:
    """The StartConfig for one lifecycle event.

    `session_id` is the id left after `validate_session_resume()`: pass "" when the
    policy cleared it, and no resume prompt is compiled. `permission_mode` defaults to
    the agent config's.
    """
    split = is_split_runtime(runtime)  # an unknown runtime fails before any compiling
    contract = compile_thread_contract(sources)
    turn = compile_turn_context(sources, event, message=message)
    wiring = StartConfig(
        agent_id=sources.agent.name,
        mcp=mcp if mcp is not None else McpConfig(),
        session_id=session_id.strip(),
        work_dir=work_dir,
        binary=binary,
        model=model,
        reasoning_effort=reasoning_effort,
        env=dict(env) if env is not None else {},
        initial_delivery_message_id=initial_delivery_message_id,
        permission_mode=permission_mode or sources.agent.permission_mode,
    )
    if not split:
        return replace(wiring, prompt=full_prompt(contract, turn))
    resume_prompt = ""
    if wiring.session_id:
        resume_prompt = without_turn_context_references(turn).text()
    return replace(
        wiring,
        base_instructions=contract.slot_text(Slot.BASE),
        developer_instructions=contract.slot_text(Slot.DEVELOPER),
        fresh_prompt=turn.text(),
        resume_prompt=resume_prompt,
    )
