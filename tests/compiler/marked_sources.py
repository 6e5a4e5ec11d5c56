"""Sources whose every text is a unique marker, so a test can see where each one lands.

Also the hypothesis strategy that generates such sources with random bodies, and a
copy of the packaged default sources folder for tests that edit files.
"""

from __future__ import annotations

import re
import shutil
import string
from importlib.resources import files
from pathlib import Path

from hypothesis import strategies as st

from codex_probe.harness.compiler import (
    SOURCE_FILES,
    AgentConfig,
    LifecycleEvent,
    Sources,
    SourceText,
)
from codex_probe.harness.compiler.classification import SKILL_DOC_SECTIONS

# Texts that come from files (the channel skill doc is built section by section).
FILE_TEXTS: tuple[SourceText, ...] = tuple(
    source.text for source in SOURCE_FILES if source.text is not SourceText.CHANNEL_SKILL
)
SKILL_HEADINGS = tuple(rule.heading for rule in SKILL_DOC_SECTIONS)


def marker(key: str) -> str:
    return f"MARK<{key}>"


def skill_marker(heading: str) -> str:
    return marker("skill:" + re.sub(r"[^a-z0-9]+", "-", heading.lower()).strip("-"))


def skill_doc_from_bodies(bodies: dict[str, str]) -> str:
    return "\n\n".join(f"## {heading}\n\n{bodies[heading]}" for heading in SKILL_HEADINGS)


def marked_sources(name: str = "marked-agent") -> Sources:
    texts: dict[SourceText, str] = {key: marker(key.value) for key in FILE_TEXTS}
    texts[SourceText.CHANNEL_SKILL] = skill_doc_from_bodies(
        {heading: skill_marker(heading) for heading in SKILL_HEADINGS}
    )
    agent = AgentConfig(name=name, description=marker(SourceText.AGENT_DESCRIPTION.value))
    return Sources(agent=agent, texts=texts, location="marked")


# No "#" (a line could turn into a section heading) and no braces (no placeholders).
_BODY_ALPHABET = string.ascii_letters + string.digits + " .,;:-_'\n"
bodies = st.text(alphabet=_BODY_ALPHABET, max_size=40).map(str.strip)


@st.composite
def random_sources(draw: st.DrawFn) -> Sources:
    """Sources with a random body after each marker; markers keep every text unique."""
    texts: dict[SourceText, str] = {
        key: f"{marker(key.value)} {draw(bodies)}".strip() for key in FILE_TEXTS
    }
    # The only placeholder of platform texts, so that the agent's name reaches base.
    texts[SourceText.IDENTITY_LINE] += ' You are "{name}".'
    texts[SourceText.CHANNEL_SKILL] = skill_doc_from_bodies(
        {heading: f"{skill_marker(heading)} {draw(bodies)}".strip() for heading in SKILL_HEADINGS}
    )
    name = draw(st.text(alphabet=string.ascii_letters + "-", min_size=1, max_size=12))
    description = f"{marker(SourceText.AGENT_DESCRIPTION.value)} {draw(bodies)}".strip()
    return Sources(agent=AgentConfig(name=name, description=description), texts=texts)


# Texts each event's turn carries (spec 3.2 resume path, 4.5); the rest of the
# event texts must appear nowhere.
EVENT_TEXTS = {
    LifecycleEvent.FRESH_START: set[SourceText](),
    LifecycleEvent.WAKE: {
        SourceText.IDENTITY_NOTICE,
        SourceText.MEMORY_RESUME_REMINDER,
        SourceText.WAKE,
    },
    LifecycleEvent.RESUME: {
        SourceText.IDENTITY_NOTICE,
        SourceText.MEMORY_RESUME_REMINDER,
        SourceText.UNREAD,
    },
    LifecycleEvent.DEFERRED_CONTINUATION: {
        SourceText.IDENTITY_NOTICE,
        SourceText.MEMORY_RESUME_REMINDER,
        SourceText.DEFERRED_CONTINUATION,
    },
    LifecycleEvent.IDLE: {SourceText.IDENTITY_NOTICE, SourceText.IDLE},
}
ALL_EVENT_TEXTS = set().union(*EVENT_TEXTS.values())


@st.composite
def event_and_message(draw: st.DrawFn) -> tuple[LifecycleEvent, str]:
    event = draw(st.sampled_from(list(LifecycleEvent)))
    if event is LifecycleEvent.IDLE:
        return event, ""
    return event, f"{marker(SourceText.CURRENT_MESSAGE)} {draw(bodies)}".strip()


def expected_markers(event: LifecycleEvent, message: str) -> dict[str, int]:
    counts = {
        marker(key): int(key not in ALL_EVENT_TEXTS or key in EVENT_TEXTS[event])
        for key in FILE_TEXTS
    }
    counts.update({skill_marker(heading): 1 for heading in SKILL_HEADINGS})
    counts[marker(SourceText.AGENT_DESCRIPTION)] = 1
    counts[marker(SourceText.CURRENT_MESSAGE)] = int(bool(message))
    return counts


def copy_default_sources(destination: Path) -> Path:
    """A writable copy of the packaged default sources folder."""
    packaged = Path(str(files("codex_probe.harness.compiler.sources")))
    shutil.copytree(packaged, destination, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return destination
