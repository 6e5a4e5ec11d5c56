"""Properties of the dispatcher over generated sources, wiring, events and sessions."""

from __future__ import annotations

import json
import string
from dataclasses import replace
from pathlib import Path

from hypothesis import assume, given
from hypothesis import strategies as st

from codex_probe.harness.compiler import (
    LifecycleEvent,
    Slot,
    Sources,
    SourceText,
    compile_turn_context,
    load_sources,
    skill_doc_sections,
)
from codex_probe.harness.compiler.classification import SkillPart
from codex_probe.harness.dispatcher import (
    McpConfig,
    StartConfig,
    build_start_config,
    instruction_fingerprint,
    thread_contract_fingerprint,
)
from tests.compiler.marked_sources import (
    bodies,
    copy_default_sources,
    event_and_message,
    expected_markers,
    marker,
    random_sources,
    skill_marker,
)

# Texts of the thread contract as a user or platform author would edit them.
INSTRUCTION_TEXTS = (
    SourceText.IDENTITY_LINE,
    SourceText.WHO_YOU_ARE,
    SourceText.WORKSPACE_MEMORY,
    SourceText.CAPABILITIES,
    SourceText.RUNTIME_GUIDANCE,
    SourceText.WORKSPACE_IDENTITY,
    SourceText.AGENTS_MD,
    SourceText.AGENT_DESCRIPTION,
)
REFERENCE_MARK_PREFIXES = (marker(SourceText.DAEMON_REFERENCE), "MARK<skill:")

words = st.text(alphabet=string.ascii_letters + string.digits + "-_/.:", max_size=30)
mcp_configs = st.builds(
    McpConfig,
    server_name=words,
    url=words,
    command=words,
    args=st.lists(words, max_size=3).map(tuple),
    env=st.dictionaries(words, words, max_size=2),
    tools=st.lists(words, max_size=4).map(tuple),
)


def fingerprint_of(config: StartConfig) -> str:
    return instruction_fingerprint(config.base_instructions, config.developer_instructions)


def replace_skill_sections(sources: Sources, part: SkillPart, body: str) -> Sources:
    sections = skill_doc_sections(sources.text(SourceText.CHANNEL_SKILL))
    doc = "\n\n".join(
        f"## {section.heading}\n\n{body}" if section.part is part else section.text
        for section in sections
    )
    return sources.with_text(SourceText.CHANNEL_SKILL, doc)


@given(random_sources(), bodies, mcp_configs, words, words, event_and_message())
def test_fingerprint_ignores_reference_text_mcp_wiring_cwd_and_daemon_url(
    sources: Sources,
    new_reference: str,
    mcp: McpConfig,
    work_dir: str,
    daemon_url: str,
    event_message: tuple[LifecycleEvent, str],
) -> None:
    event, message = event_message
    rewired = replace_skill_sections(sources, SkillPart.REFERENCE, new_reference)
    rewired = rewired.with_text(SourceText.DAEMON_REFERENCE, new_reference)
    before = build_start_config(sources, event=event, message=message)
    after = build_start_config(
        rewired,
        event=event,
        message=message,
        mcp=mcp,
        work_dir=work_dir,
        env={"AGENTTEAM_DAEMON_URL": daemon_url},
    )
    assert fingerprint_of(after) == fingerprint_of(before)
    assert thread_contract_fingerprint(rewired) == thread_contract_fingerprint(sources)


@st.composite
def instruction_edits(draw: st.DrawFn, sources: Sources) -> Sources:
    """The sources with one instruction text (or the agent's name) changed."""
    choice = draw(st.sampled_from([*INSTRUCTION_TEXTS, "skill core", "agent name"]))
    if choice == "skill core":
        return replace_skill_sections(sources, SkillPart.CORE, draw(bodies))
    if choice == "agent name":
        name = draw(st.text(alphabet=string.ascii_letters, min_size=1, max_size=12))
        assume(name != sources.agent.name)
        return replace(sources, agent=replace(sources.agent, name=name))
    assert isinstance(choice, SourceText)
    return sources.with_text(choice, draw(bodies))


@given(st.data(), random_sources())
def test_fingerprint_changes_under_any_change_of_base_or_developer_text(
    data: st.DataObject,
    sources: Sources,
) -> None:
    edited = data.draw(instruction_edits(sources))
    assert thread_contract_fingerprint(edited) != thread_contract_fingerprint(sources)
    before = build_start_config(sources, event="fresh_start")
    after = build_start_config(edited, event="fresh_start")
    assert fingerprint_of(after) != fingerprint_of(before)


@given(random_sources(), event_and_message(), words.filter(str.strip))
def test_resume_prompt_never_contains_reference_manual_text(
    sources: Sources,
    event_message: tuple[LifecycleEvent, str],
    session_id: str,
) -> None:
    event, message = event_message
    config = build_start_config(sources, event=event, message=message, session_id=session_id)
    references = compile_turn_context(sources, event, message=message).slot_blocks(Slot.REFERENCE)
    assert references
    for block in references:
        assert block.text not in config.resume_prompt
        assert block.text in config.fresh_prompt
    assert not any(prefix in config.resume_prompt for prefix in REFERENCE_MARK_PREFIXES)


@given(random_sources(), event_and_message())
def test_start_config_places_every_text_exactly_once(
    sources: Sources,
    event_message: tuple[LifecycleEvent, str],
) -> None:
    event, message = event_message
    expected = expected_markers(event, message)
    split = build_start_config(sources, event=event, message=message, session_id="s")
    split_text = "\n".join(
        [split.base_instructions, split.developer_instructions, split.fresh_prompt],
    )
    assert {mark: split_text.count(mark) for mark in expected} == expected
    whole = build_start_config(sources, runtime="opencode", event=event, message=message)
    assert {mark: whole.prompt.count(mark) for mark in expected} == expected


@given(random_sources(), event_and_message())
def test_resume_prompt_keeps_every_dynamic_text_of_the_fresh_prompt(
    sources: Sources,
    event_message: tuple[LifecycleEvent, str],
) -> None:
    event, message = event_message
    config = build_start_config(sources, event=event, message=message, session_id="s")
    dynamic = compile_turn_context(sources, event, message=message).slot_blocks(Slot.TURN)
    for block in dynamic:
        assert config.resume_prompt.count(block.text) == 1
    assert skill_marker("Threads") not in config.resume_prompt


@given(random_sources(), event_and_message(), st.sampled_from(["codex", "claude", "opencode"]))
def test_compiling_twice_gives_identical_bytes(
    sources: Sources,
    event_message: tuple[LifecycleEvent, str],
    runtime: str,
) -> None:
    event, message = event_message

    def compiled() -> bytes:
        config = build_start_config(
            sources,
            runtime=runtime,
            event=event,
            message=message,
            session_id="s",
        )
        return json.dumps(config.to_json_dict(), sort_keys=True).encode()

    assert compiled() == compiled()


def test_loading_the_same_folder_twice_compiles_to_identical_bytes(tmp_path: Path) -> None:
    folder = copy_default_sources(tmp_path / "sources")
    compiled = [
        json.dumps(
            build_start_config(
                load_sources(folder),
                event="wake",
                session_id="s",
                message="hi",
            ).to_json_dict(),
        ).encode()
        for _ in range(2)
    ]
    assert compiled[0] == compiled[1]
