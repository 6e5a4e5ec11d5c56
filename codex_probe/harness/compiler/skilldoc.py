"""The channel skill doc, split into core rules and reference manual (spec 3.3, 4.3).

The doc is one markdown file of "## " sections. Each heading is looked up in
`SKILL_DOC_SECTIONS`; core and reference are both cut from that one file, and the
whole doc for non-split runtimes is rebuilt from the two parts, so the three texts
cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from codex_probe.harness.compiler.blocks import BLOCK_SEPARATOR
from codex_probe.harness.compiler.classification import (
    SKILL_DOC_SECTIONS,
    SKILL_RULES_BY_HEADING,
    SkillPart,
)

HEADING_PREFIX = "## "


class SkillDocError(ValueError):
    """The skill doc does not match the section table of spec 3.3."""


@dataclass(frozen=True)
class SkillSection:
    heading: str
    part: SkillPart
    text: str  # the "## " heading line and the body, without surrounding blank lines


@dataclass(frozen=True)
class SkillDocParts:
    core: str  # for baseInstructions
    reference: str  # for the first turn's input


def skill_doc_sections(doc: str) -> tuple[SkillSection, ...]:
    """Cut the doc into its sections, each classified by the table, in file order."""
    chunks = _split_at_headings(doc)
    sections: list[SkillSection] = []
    for heading, text in chunks:
        rule = SKILL_RULES_BY_HEADING.get(heading)
        if rule is None:
            raise SkillDocError(f"section {heading!r} is not in the skill doc section table")
        if any(section.heading == heading for section in sections):
            raise SkillDocError(f"section {heading!r} appears twice")
        sections.append(SkillSection(heading=heading, part=rule.part, text=text))
    found = {section.heading for section in sections}
    missing = [rule.heading for rule in SKILL_DOC_SECTIONS if rule.heading not in found]
    if missing:
        raise SkillDocError(f"missing sections: {', '.join(repr(h) for h in missing)}")
    return tuple(sections)


def skill_doc_split(doc: str) -> SkillDocParts:
    sections = skill_doc_sections(doc)
    return SkillDocParts(
        core=_join_part(sections, SkillPart.CORE),
        reference=_join_part(sections, SkillPart.REFERENCE),
    )


def skill_doc(doc: str) -> str:
    """The whole doc, for runtimes that get one prompt string (spec 4.3 `SkillDoc()`)."""
    parts = skill_doc_split(doc)
    return parts.core + BLOCK_SEPARATOR + parts.reference


def _join_part(sections: tuple[SkillSection, ...], part: SkillPart) -> str:
    return BLOCK_SEPARATOR.join(section.text for section in sections if section.part is part)


def _split_at_headings(doc: str) -> list[tuple[str, str]]:
    chunks: list[tuple[str, list[str]]] = []
    for line in doc.splitlines():
        if line.startswith(HEADING_PREFIX):
            chunks.append((line.removeprefix(HEADING_PREFIX).strip(), [line]))
        elif chunks:
            chunks[-1][1].append(line)
        elif line.strip():
            # Text with no section would have no classification: refuse it.
            raise SkillDocError(f"text before the first section: {line.strip()[:60]!r}")
    return [(heading, "\n".join(lines).strip()) for heading, lines in chunks]
