from __future__ import annotations

import pytest

from codex_probe.harness.compiler import (
    LifecycleEvent,
    Slot,
    SourceText,
    compile_turn_context,
    load_sources,
    render_platform_text,
    skill_doc,
)
from codex_probe.harness.dispatcher import (
    McpConfig,
    UnknownRuntimeError,
    build_start_config,
    without_turn_context_references,
)
from tests.compiler.marked_sources import marked_sources, marker, skill_marker

TOOL_LIST_HEADING = "## Communication — tool list"
EVENTS_WITH_MESSAGE = [event for event in LifecycleEvent if event is not LifecycleEvent.IDLE]


def test_fresh_start_without_a_session_prepares_instructions_and_fresh_prompt_only() -> None:
    config = build_start_config(load_sources(), event="fresh_start", message="hello")
    assert config.base_instructions
    assert config.developer_instructions
    assert config.fresh_prompt.endswith("## Current message\n\nhello")
    assert config.resume_prompt == ""
    assert config.prompt == ""


@pytest.mark.parametrize("event", EVENTS_WITH_MESSAGE)
def test_with_a_session_both_prompts_are_prepared_and_only_fresh_keeps_references(
    event: LifecycleEvent,
) -> None:
    config = build_start_config(load_sources(), event=event, session_id="t-1", message="hi")
    assert TOOL_LIST_HEADING in config.fresh_prompt
    assert "## Daemon reference" in config.fresh_prompt
    assert config.resume_prompt
    assert TOOL_LIST_HEADING not in config.resume_prompt
    assert config.resume_prompt.endswith("## Current message\n\nhi")


def test_resume_prompt_is_the_turn_context_without_its_reference_blocks() -> None:
    sources = load_sources()
    config = build_start_config(sources, event="wake", session_id="t-1", message="hi")
    turn = compile_turn_context(sources, "wake", message="hi")
    assert config.fresh_prompt == turn.text()
    assert config.resume_prompt == turn.slot_text(Slot.TURN)


def test_idle_resume_prompt_is_not_empty_so_the_idle_turn_is_still_sent() -> None:
    config = build_start_config(load_sources(), event="idle", session_id="t-1")
    assert "No new messages while you were away. Nothing to do — just stop." in (
        config.resume_prompt
    )


def test_without_turn_context_references_drops_exactly_the_reference_blocks() -> None:
    turn = compile_turn_context(load_sources(), "wake", message="hi")
    lean = without_turn_context_references(turn)
    assert lean.blocks == turn.slot_blocks(Slot.TURN)
    assert lean.kind is turn.kind
    assert lean.event == turn.event


def test_a_blank_session_id_counts_as_no_session() -> None:
    config = build_start_config(load_sources(), event="wake", session_id="   ")
    assert config.session_id == ""
    assert config.resume_prompt == ""


@pytest.mark.parametrize("runtime", ["claude", "opencode"])
def test_non_split_runtimes_get_the_full_prompt_and_no_instruction_fields(runtime: str) -> None:
    sources = load_sources()
    config = build_start_config(sources, runtime=runtime, event="wake", session_id="s", message="m")
    whole_skill_doc = skill_doc(
        render_platform_text(sources.text(SourceText.CHANNEL_SKILL), sources.agent.name)
    )
    assert whole_skill_doc in config.prompt
    assert config.prompt.endswith("## Current message\n\nm")
    assert (config.base_instructions, config.developer_instructions) == ("", "")
    assert (config.fresh_prompt, config.resume_prompt) == ("", "")


def test_non_split_prompt_keeps_the_order_of_table_3_2() -> None:
    config = build_start_config(
        marked_sources(), runtime="claude", event="fresh_start", message="MARK<message>"
    )
    rows_in_order = [
        marker(SourceText.IDENTITY_LINE),
        marker(SourceText.WHO_YOU_ARE),
        skill_marker("Communication — MCP tools ONLY"),
        skill_marker("Threads"),
        marker(SourceText.WORKSPACE_MEMORY),
        marker(SourceText.CAPABILITIES),
        marker(SourceText.AGENTS_MD),
        marker(SourceText.AGENT_DESCRIPTION),
        "MARK<message>",
    ]
    positions = [config.prompt.index(text) for text in rows_in_order]
    assert positions == sorted(positions)


def test_instructions_start_with_the_identity_line_and_developer_holds_agents_md_and_role() -> None:
    sources = load_sources()
    config = build_start_config(sources, event="fresh_start")
    assert config.base_instructions.startswith(
        'You are "probe-agent", an AI agent in AgentTeam.\n\n## Who you are'
    )
    assert sources.text(SourceText.AGENTS_MD) in config.developer_instructions
    assert config.developer_instructions.endswith(sources.agent.description)


def test_wiring_passes_through_unchanged() -> None:
    mcp = McpConfig(server_name="agentteam", url="http://127.0.0.1:9/mcp", tools=("message_send",))
    config = build_start_config(
        load_sources(),
        event="fresh_start",
        mcp=mcp,
        work_dir="/work/agent",
        binary="/bin/codex",
        model="gpt-x",
        reasoning_effort="high",
        env={"A": "1"},
        initial_delivery_message_id="msg-7",
        permission_mode="full_access",
    )
    assert (config.mcp, config.work_dir, config.binary, config.model) == (
        mcp,
        "/work/agent",
        "/bin/codex",
        "gpt-x",
    )
    assert (config.reasoning_effort, dict(config.env), config.initial_delivery_message_id) == (
        "high",
        {"A": "1"},
        "msg-7",
    )
    assert config.permission_mode == "full_access"
    assert config.agent_id == "probe-agent"


def test_permission_mode_defaults_to_the_agent_config() -> None:
    config = build_start_config(load_sources(), event="fresh_start")
    assert config.permission_mode == "agent_workspace_write"


def test_an_unknown_runtime_is_refused_by_name() -> None:
    with pytest.raises(UnknownRuntimeError, match="unknown runtime 'gemini'"):
        build_start_config(load_sources(), runtime="gemini", event="wake")


def test_json_form_of_start_config_has_every_field_of_section_4_2() -> None:
    data = build_start_config(load_sources(), event="wake", session_id="s").to_json_dict()
    assert set(data) == {
        "agent_id",
        "prompt",
        "fresh_prompt",
        "resume_prompt",
        "base_instructions",
        "developer_instructions",
        "mcp",
        "session_id",
        "work_dir",
        "binary",
        "model",
        "reasoning_effort",
        "env",
        "initial_delivery_message_id",
        "permission_mode",
    }
