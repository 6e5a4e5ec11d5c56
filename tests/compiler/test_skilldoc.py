from __future__ import annotations

import pytest

from codex_probe.harness.compiler import (
    SkillDocError,
    SourceText,
    load_sources,
    skill_doc,
    skill_doc_sections,
    skill_doc_split,
)
from codex_probe.harness.compiler.classification import SKILL_DOC_SECTIONS, SkillPart
from tests.compiler.marked_sources import SKILL_HEADINGS, skill_doc_from_bodies


def packaged_skill_doc() -> str:
    return load_sources().text(SourceText.CHANNEL_SKILL)


def test_whole_skill_doc_is_core_then_reference_joined_by_a_blank_line() -> None:
    doc = packaged_skill_doc()
    parts = skill_doc_split(doc)
    assert skill_doc(doc) == parts.core + "\n\n" + parts.reference


def test_split_keeps_every_section_text_exactly_once() -> None:
    doc = packaged_skill_doc()
    parts = skill_doc_split(doc)
    for section in skill_doc_sections(doc):
        home = parts.core if section.part is SkillPart.CORE else parts.reference
        other = parts.reference if section.part is SkillPart.CORE else parts.core
        assert home.count(section.text) == 1
        assert section.text not in other


def test_core_part_holds_the_critical_rules_and_reference_part_the_tool_list() -> None:
    parts = skill_doc_split(packaged_skill_doc())
    assert "Do NOT output text directly. ALL communication goes through message_send." in (
        parts.core
    )
    assert "You MUST claim a task before starting work on it." in parts.core
    assert "10. message_attachment_view" in parts.reference
    assert "10. message_attachment_view" not in parts.core


def test_sections_keep_file_order_within_each_part() -> None:
    headings = list(reversed(SKILL_HEADINGS))
    doc = "\n\n".join(f"## {heading}\n\nbody of {heading}" for heading in headings)
    parts = skill_doc_split(doc)
    core_in_file_order = [h for h in headings if _part_of(h) is SkillPart.CORE]
    positions = [parts.core.index(f"## {heading}\n") for heading in core_in_file_order]
    assert positions == sorted(positions)


def test_subheadings_stay_inside_their_section() -> None:
    bodies = {heading: "text" for heading in SKILL_HEADINGS}
    bodies["Threads"] = "intro\n\n### Starting a thread\n\ndetails"
    parts = skill_doc_split(skill_doc_from_bodies(bodies))
    assert "### Starting a thread\n\ndetails" in parts.reference


def test_a_section_missing_from_the_table_is_refused_by_name() -> None:
    doc = skill_doc_from_bodies({heading: "text" for heading in SKILL_HEADINGS})
    with pytest.raises(SkillDocError, match="'Secret tips' is not in the"):
        skill_doc_sections(doc + "\n\n## Secret tips\n\nbody")


def test_a_table_section_missing_from_the_doc_is_refused_by_name() -> None:
    doc = "\n\n".join(f"## {heading}\n\ntext" for heading in SKILL_HEADINGS if heading != "Threads")
    with pytest.raises(SkillDocError, match="missing sections: 'Threads'"):
        skill_doc_split(doc)


def test_a_section_given_twice_is_refused() -> None:
    doc = skill_doc_from_bodies({heading: "text" for heading in SKILL_HEADINGS})
    with pytest.raises(SkillDocError, match="'Threads' appears twice"):
        skill_doc_sections(doc + "\n\n## Threads\n\nagain")


def test_text_before_the_first_section_is_refused() -> None:
    doc = skill_doc_from_bodies({heading: "text" for heading in SKILL_HEADINGS})
    with pytest.raises(SkillDocError, match="text before the first section: 'stray preamble'"):
        skill_doc_sections("stray preamble\n\n" + doc)


def _part_of(heading: str) -> SkillPart:
    return next(rule.part for rule in SKILL_DOC_SECTIONS if rule.heading == heading)
