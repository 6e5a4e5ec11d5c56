"""One example per row of the spec's classification tables (3.2, 3.3, 3.4, 4.4).

The expected place of each row is transcribed here from the spec, independently of
`harness.compiler.classification`, and checked on the StartConfig the dispatcher builds.
"""

from __future__ import annotations

import pytest

from codex_probe.harness.compiler import LifecycleEvent, SourceText
from codex_probe.harness.dispatcher import StartConfig, build_start_config
from tests.compiler.marked_sources import marked_sources, marker, skill_marker

PROMPT_FIELDS = ("base_instructions", "developer_instructions", "fresh_prompt", "resume_prompt")

# Where a text of each category of the spec must appear, and how often, in a codex
# StartConfig prepared for a resumable session.
INSTRUCTIONS_IN_BASE = {
    "base_instructions": 1,
    "developer_instructions": 0,
    "fresh_prompt": 0,
    "resume_prompt": 0,
}
INSTRUCTIONS_IN_DEVELOPER = {
    "base_instructions": 0,
    "developer_instructions": 1,
    "fresh_prompt": 0,
    "resume_prompt": 0,
}
TURN_HISTORY_REFERENCE = {
    "base_instructions": 0,
    "developer_instructions": 0,
    "fresh_prompt": 1,
    "resume_prompt": 0,
}
DYNAMIC_INPUT = {
    "base_instructions": 0,
    "developer_instructions": 0,
    "fresh_prompt": 1,
    "resume_prompt": 1,
}


def codex_config(event: LifecycleEvent, message: str = "") -> StartConfig:
    return build_start_config(
        marked_sources(),
        runtime="codex",
        event=event,
        session_id="thread-1",
        message=message,
    )


def placement(config: StartConfig, text: str) -> dict[str, int]:
    return {name: str(getattr(config, name)).count(text) for name in PROMPT_FIELDS}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(marker(SourceText.IDENTITY_LINE), INSTRUCTIONS_IN_BASE, id="1-identity-line"),
        pytest.param(marker(SourceText.WHO_YOU_ARE), INSTRUCTIONS_IN_BASE, id="2-who-you-are"),
        pytest.param(
            marker(SourceText.WORKSPACE_MEMORY), INSTRUCTIONS_IN_BASE, id="4-workspace-and-memory"
        ),
        pytest.param(marker(SourceText.CAPABILITIES), INSTRUCTIONS_IN_BASE, id="5-capabilities"),
        pytest.param(
            marker(SourceText.AGENTS_MD), INSTRUCTIONS_IN_DEVELOPER, id="6-agent-instructions"
        ),
        pytest.param(
            marker(SourceText.AGENT_DESCRIPTION), INSTRUCTIONS_IN_DEVELOPER, id="7-initial-role"
        ),
    ],
)
def test_start_prompt_instruction_rows_of_table_3_2_go_to_instructions_only(
    text: str,
    expected: dict[str, int],
) -> None:
    assert placement(codex_config(LifecycleEvent.WAKE), text) == expected


def test_start_prompt_row_3_skill_doc_is_split_between_instructions_and_reference() -> None:
    config = codex_config(LifecycleEvent.WAKE)
    assert placement(config, skill_marker("Startup sequence")) == INSTRUCTIONS_IN_BASE
    assert placement(config, skill_marker("Threads")) == TURN_HISTORY_REFERENCE


def test_start_prompt_row_8_current_message_is_dynamic_input() -> None:
    config = codex_config(LifecycleEvent.WAKE, message="MARK<the user's message>")
    assert placement(config, "MARK<the user's message>") == DYNAMIC_INPUT


@pytest.mark.parametrize(
    ("text", "event"),
    [
        pytest.param(marker(SourceText.WAKE), LifecycleEvent.WAKE, id="wake-prompt"),
        pytest.param(marker(SourceText.UNREAD), LifecycleEvent.RESUME, id="unread-prompt"),
        pytest.param(marker(SourceText.IDLE), LifecycleEvent.IDLE, id="idle-prompt"),
        pytest.param(marker(SourceText.IDENTITY_NOTICE), LifecycleEvent.WAKE, id="identity-notice"),
        pytest.param(
            marker(SourceText.MEMORY_RESUME_REMINDER),
            LifecycleEvent.WAKE,
            id="memory-resume-reminder",
        ),
    ],
)
def test_resume_path_rows_of_table_3_2_are_dynamic_input(
    text: str,
    event: LifecycleEvent,
) -> None:
    assert placement(codex_config(event), text) == DYNAMIC_INPUT


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        # core invariants, in the spec's order
        ("Communication — MCP tools ONLY", INSTRUCTIONS_IN_BASE),
        ("Startup sequence", INSTRUCTIONS_IN_BASE),
        ("Task boards — core rules", INSTRUCTIONS_IN_BASE),
        ("Communication style", INSTRUCTIONS_IN_BASE),
        ("Conversation etiquette", INSTRUCTIONS_IN_BASE),
        ("Message delivery", INSTRUCTIONS_IN_BASE),
        ("Local workspace memory", INSTRUCTIONS_IN_BASE),
        # reference manual, in the spec's order
        ("Communication — tool list", TURN_HISTORY_REFERENCE),
        ("Messaging — message format", TURN_HISTORY_REFERENCE),
        ("Sending messages — syntax", TURN_HISTORY_REFERENCE),
        ("Threads", TURN_HISTORY_REFERENCE),
        ("Discovering people and channel scopes", TURN_HISTORY_REFERENCE),
        ("Channel awareness", TURN_HISTORY_REFERENCE),
        ("Reading history — syntax", TURN_HISTORY_REFERENCE),
        ("Task boards — protocol", TURN_HISTORY_REFERENCE),
        ("@Mentions", TURN_HISTORY_REFERENCE),
        ("Broadcast and task-notify protocol", TURN_HISTORY_REFERENCE),
        ("Formatting — No HTML", TURN_HISTORY_REFERENCE),
        ("Formatting — URLs in non-English text", TURN_HISTORY_REFERENCE),
    ],
)
def test_each_skill_doc_section_of_table_3_3_lands_in_its_part(
    heading: str,
    expected: dict[str, int],
) -> None:
    assert placement(codex_config(LifecycleEvent.WAKE), skill_marker(heading)) == expected


def test_agents_md_goes_whole_into_developer_instructions_whatever_its_size() -> None:
    huge = "\n".join(f"- rule {index}: MARK<agents-{index}>" for index in range(20_000))
    sources = marked_sources().with_text(SourceText.AGENTS_MD, huge)
    config = build_start_config(sources, event=LifecycleEvent.WAKE, session_id="thread-1")
    assert huge in config.developer_instructions
    assert placement(config, "MARK<agents-19999>") == INSTRUCTIONS_IN_DEVELOPER


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            marker(SourceText.RUNTIME_GUIDANCE), INSTRUCTIONS_IN_BASE, id="runtime-guidance"
        ),
        pytest.param(marker(SourceText.WORKSPACE_IDENTITY), INSTRUCTIONS_IN_BASE, id="identity-md"),
        pytest.param(
            marker(SourceText.DAEMON_REFERENCE), TURN_HISTORY_REFERENCE, id="daemon-reference"
        ),
    ],
)
def test_section_4_4_additions_land_in_their_slots(text: str, expected: dict[str, int]) -> None:
    assert placement(codex_config(LifecycleEvent.WAKE), text) == expected
