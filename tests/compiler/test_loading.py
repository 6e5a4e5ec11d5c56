from __future__ import annotations

import re
from pathlib import Path

import pytest

from codex_probe.harness.compiler import SOURCE_FILES, SourcesError, SourceText, load_sources
from tests.compiler.marked_sources import copy_default_sources


@pytest.fixture
def sources_dir(tmp_path: Path) -> Path:
    return copy_default_sources(tmp_path / "sources")


def test_packaged_defaults_provide_every_text_non_empty() -> None:
    sources = load_sources()
    for source in SOURCE_FILES:
        assert sources.text(source.text), source.path
    assert sources.agent.name == "probe-agent"
    assert sources.agent.description
    assert sources.agent.permission_mode == "agent_workspace_write"


def test_a_copied_folder_loads_the_same_texts_as_the_packaged_defaults(
    sources_dir: Path,
) -> None:
    assert load_sources(sources_dir).texts == load_sources().texts
    assert load_sources(sources_dir).location == str(sources_dir)


def test_idle_text_is_non_empty_so_an_idle_resume_still_sends_a_turn() -> None:
    idle = load_sources().text(SourceText.IDLE)
    assert idle.startswith("No new messages while you were away. Nothing to do — just stop.")


def test_source_texts_are_read_without_surrounding_blank_lines(sources_dir: Path) -> None:
    (sources_dir / "capabilities.md").write_text("\n\n## Capabilities\n\nYou can.\n\n\n")
    assert load_sources(sources_dir).text(SourceText.CAPABILITIES) == "## Capabilities\n\nYou can."


@pytest.mark.parametrize(
    "relative",
    [source.path for source in SOURCE_FILES if source.required] + ["agent.toml"],
)
def test_a_missing_required_file_is_an_error_naming_it(sources_dir: Path, relative: str) -> None:
    (sources_dir / relative).unlink()
    with pytest.raises(SourcesError, match=f"missing source file .*{relative}"):
        load_sources(sources_dir)


def test_an_empty_required_file_is_an_error_naming_it(sources_dir: Path) -> None:
    (sources_dir / "event_idle.md").write_text("  \n")
    with pytest.raises(SourcesError, match=re.escape("event_idle.md is empty")):
        load_sources(sources_dir)


def test_a_file_that_is_not_utf8_is_an_error_naming_it(sources_dir: Path) -> None:
    (sources_dir / "who_you_are.md").write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(SourcesError, match=re.escape("who_you_are.md is not UTF-8")):
        load_sources(sources_dir)


def test_a_missing_agents_md_means_no_agent_instructions(sources_dir: Path) -> None:
    # Spec 4.2: a deleted AGENTS.md is expressed as empty developer instructions.
    (sources_dir / "AGENTS.md").unlink()
    (sources_dir / "IDENTITY.md").unlink()
    sources = load_sources(sources_dir)
    assert sources.text(SourceText.AGENTS_MD) == ""
    assert sources.text(SourceText.WORKSPACE_IDENTITY) == ""


def test_a_sources_folder_that_does_not_exist_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(SourcesError, match=f"sources folder {tmp_path / 'nope'} does not exist"):
        load_sources(tmp_path / "nope")


def test_a_file_given_as_sources_folder_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(SourcesError, match="is not a folder"):
        load_sources(tmp_path / "file")


def test_a_skill_doc_off_the_section_table_is_an_error_naming_the_file(sources_dir: Path) -> None:
    skill = sources_dir / "channel_skill.md"
    skill.write_text(skill.read_text() + "\n\n## Unlisted section\n\nbody\n")
    problem = "channel_skill.md: section 'Unlisted section' is not in"
    with pytest.raises(SourcesError, match=re.escape(problem)):
        load_sources(sources_dir)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('name = "a"\ndescription = \n', "invalid TOML"),
        ('description = "no name"\n', "'name' must be a non-empty string"),
        ('name = "  "\n', "'name' must be a non-empty string"),
        ('name = "a"\ndescription = 3\n', "'description' must be a string"),
        ('name = "a"\npermission_mode = ""\n', "'permission_mode' must be a non-empty string"),
        ('name = "a"\nrole = "typo for description"\n', "unknown keys role"),
    ],
)
def test_a_bad_agent_config_is_an_error_naming_the_file_and_the_problem(
    sources_dir: Path,
    content: str,
    problem: str,
) -> None:
    (sources_dir / "agent.toml").write_text(content)
    with pytest.raises(SourcesError, match=f"agent.toml: {problem}"):
        load_sources(sources_dir)


def test_agent_config_may_leave_out_description_and_permission_mode(sources_dir: Path) -> None:
    (sources_dir / "agent.toml").write_text('name = "solo"\n')
    agent = load_sources(sources_dir).agent
    assert (agent.name, agent.description, agent.permission_mode) == (
        "solo",
        "",
        "agent_workspace_write",
    )
