"""codex's own texts for a profile: long blocks as stand-ins, the compaction texts exact.

The fake needs codex's default prompt, skills and permissions blocks only to be told
apart the way the observation tells them apart: by their opening words. So a stand-in
keeps the opening sentence (and a closing tag) and says it stands in for the rest; the
compaction prompt and summary prefix are kept exactly, since the fake sends them whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from codex_probe.probes.domain.reading import (
    COMPACTION_PROMPT,
    COMPACTION_SUMMARY,
    DEFAULT_PROMPT,
    MODEL_SWITCH,
    PERMISSIONS,
    SKILLS,
)
from codex_probe.probes.releases.learn.observed import Gap, Inexpressible, ModelRequest, Observed
from codex_probe.probes.runner.scenarios import base

STAND_IN = "(fake-codex stands in for the rest of this text.)"
CLOSING_TAG = re.compile(r"</[^<>]+>")


def stand_in(text: str) -> str:
    """The opening sentence of a codex block (and its closing tag), standing in for it."""
    lines = text.strip().split("\n")
    head = lines[0]
    end = head.find(". ")
    if end != -1:
        head = head[: end + 1]
    if len(lines) > 1 and CLOSING_TAG.fullmatch(lines[-1].strip()):
        return f"{head}\n{STAND_IN}\n{lines[-1].strip()}"
    return f"{head} {STAND_IN}"


def _labelled(request: ModelRequest, label: str, field: str) -> str:
    found = request.find_label(label)
    if found is None:
        raise Inexpressible(
            Gap(
                field,
                request.scenario,
                request.step,
                f"no {label} in {request.describe()}",
                f"a text for a request without {label}",
            )
        )
    return request.part_text(*found)


def default_prompt(seen: Observed) -> str:
    field = "texts.default_prompt"
    request = seen.request("start-empty", "turn-base-null", field)
    if request.normalized["instructions"] == DEFAULT_PROMPT and request.instructions:
        return stand_in(request.instructions)
    return stand_in(_labelled(request, DEFAULT_PROMPT, field))


def summary_prefix(seen: Observed) -> str:
    field = "texts.summary_prefix"
    compaction = seen.request("compaction", "compact", field)
    after = seen.request("compaction", "turn-3", field)
    summary = _labelled(after, COMPACTION_SUMMARY, field)
    answer = seen.observation("compaction", field).answers.get(compaction.index)
    if answer is None or not summary.endswith(answer):
        raise Inexpressible(
            Gap(
                field,
                "compaction",
                "turn-3",
                f"the summary message does not end with the model's summary {answer!r}",
                "a summary layout other than prefix + the model's answer",
            )
        )
    return summary[: len(summary) - len(answer)]


def _start_block(label: str, field: str) -> Callable[[Observed], str]:
    def infer(seen: Observed) -> str:
        return stand_in(_labelled(seen.request("start", "turn-1", field), label, field))

    return infer


def compaction_prompt(seen: Observed) -> str:
    field = "texts.compaction_prompt"
    return _labelled(seen.request("compaction", "compact", field), COMPACTION_PROMPT, field)


def model_switch(seen: Observed) -> str:
    """The developer message of a model switch, the thread's base instructions made the
    template's {instructions} (the scenario's base text, as thread/start gave it)."""
    field = "texts.model_switch"
    request = seen.request("model-switch", "turn-2", field)
    text = _labelled(request, MODEL_SWITCH, field)
    given = base("V1")
    if given not in text:
        raise Inexpressible(
            Gap(
                field,
                "model-switch",
                "turn-2",
                f"the {MODEL_SWITCH} message does not hold the thread's base instructions",
                "a model switch message without the base instructions",
            )
        )
    return text.replace("{", "{{").replace("}", "}}").replace(given, "{instructions}")


# One inference per text of the profile, in the profile's order.
TEXT_INFERENCES: dict[str, Callable[[Observed], str]] = {
    "default_prompt": default_prompt,
    "skills": _start_block(SKILLS, "texts.skills"),
    "permissions": _start_block(PERMISSIONS, "texts.permissions"),
    "compaction_prompt": compaction_prompt,
    "summary_prefix": summary_prefix,
    "model_switch": model_switch,
}
