"""Assemble a fake profile of one release from its real observations, and write it.

Each behaviour entry is `measured: true` with evidence naming the scenario and step it
came from. Where the profile language cannot express what was observed, the entry keeps
the value of the nearest checked-in profile, says `measured: false` and why, and the gap
is reported: a learned profile never approximates silently. The fake's own refusals,
which no scenario observes, keep the nearest checked-in answer and say `measured: false`
(no gap: nothing was observed that the profile cannot express).
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from codex_probe.fake_appserver.profile import (
    Behaviour,
    ErrorAnswer,
    Errors,
    Measured,
    Profile,
    ProfileDocument,
    ProfileError,
    Provenance,
    Texts,
    Turns,
    WireDocument,
    encode_document,
    load_profile,
    nearest_checked_in_versions,
    profile_for,
)
from codex_probe.fake_appserver.turn_profile import TurnTexts
from codex_probe.harness.files import write_text_atomically
from codex_probe.harness.tool import TOOL
from codex_probe.probes.domain.observation import Observation
from codex_probe.probes.domain.surface.release import surface_of
from codex_probe.probes.releases.learn.behaviour import INFERENCES
from codex_probe.probes.releases.learn.book import write_book_beside
from codex_probe.probes.releases.learn.errors import ERROR_INFERENCES, UNOBSERVED_ERRORS
from codex_probe.probes.releases.learn.observed import Gap, Inexpressible, Observed
from codex_probe.probes.releases.learn.surface import learn_surface
from codex_probe.probes.releases.learn.texts import TEXT_INFERENCES
from codex_probe.probes.releases.learn.turns import (
    NOT_INFERRED,
    TURN_INFERENCES,
    TURN_TEXT_INFERENCES,
    kept_reason,
)
from codex_probe.probes.releases.learn.wire_capture import wire_document
from codex_probe.probes.runner.plan import LearnFailed, Learning

T = TypeVar("T")


@dataclass
class LearnedProfile:
    version: str
    document: ProfileDocument
    wire: WireDocument
    gaps: list[Gap] = field(default_factory=list)

    @property
    def file_name(self) -> str:
        return f"{self.version}.json"

    def write(self, folder: Path) -> Path:
        """Write VERSION.json and its wire file into `folder`; the profile's path."""
        folder.mkdir(parents=True, exist_ok=True)
        wire_text = json.dumps(msgspec.to_builtins(self.wire), indent=1, sort_keys=True) + "\n"
        write_text_atomically(folder / self.document.measured.wire_templates, wire_text)
        path = folder / self.file_name
        write_text_atomically(path, encode_document(self.document))
        return path


class LearnError(LearnFailed):
    """A profile cannot be written: a value it must keep has no checked-in profile to lend it."""


def learning_into(folder: Path, *, always: bool = False) -> Learning:
    """A release run's learning: a profile learned from the release's real observations
    (`learn_profile`), written into `folder` (`always`: even when one is checked in), and
    its answer book from the release's exploration beside it (`write_book_beside`)."""
    return Learning(folder, learn_profile, always, book=write_book_beside)


def nearest_checked_in(version: str) -> Profile:
    """The loadable checked-in profile closest below `version` (else the closest above)."""
    problems = []
    for candidate in nearest_checked_in_versions(version):
        try:
            return load_profile(candidate)
        except ProfileError as error:  # e.g. the model gained a field it lacks
            problems.append(str(error))
    raise LearnError(
        "an observation could not be learned and no checked-in profile can lend its value: "
        + "; ".join(problems or ["there is none"])
    )


def unobserved_error(name: str, version: str) -> Measured[ErrorAnswer]:
    """The fake's own refusal `name` as the nearest checked-in profile has it, not measured.

    Only that entry is read, so learning works while the checked-in profiles lack a field
    the model has just gained.
    """
    problems = []
    for candidate in nearest_checked_in_versions(version):
        path = profile_for(candidate)
        assert path is not None  # the candidates are versions with a checked-in profile
        try:
            entry = json.loads(path.read_bytes())["errors"][name]
            kept = msgspec.convert(entry, Measured[ErrorAnswer])
        except (OSError, ValueError, KeyError, TypeError, msgspec.ValidationError) as error:
            problems.append(f"{path}: errors.{name}: {error!r}")
            continue
        evidence = f"not learned: {UNOBSERVED_ERRORS[name]}; kept the value of profile {candidate}"
        return Measured(kept.value, False, evidence)
    raise LearnError(
        f"errors.{name} is never observed and no checked-in profile has a value for it: "
        + "; ".join(problems or ["there is none"])
    )


def learn_profile(
    version: str, observations: Mapping[str, Observation], *, today: str | None = None
) -> LearnedProfile:
    """The profile of `version` as its real observations (scenario -> observation) show it.

    Where an entry cannot be learned it keeps the value of the nearest checked-in profile
    (read only then, so learning works while the checked-in ones lack a new field).
    """
    seen = Observed(observations)
    gaps: list[Gap] = []
    lent: list[Profile] = []

    def fallback() -> Profile:
        if not lent:
            lent.append(nearest_checked_in(version))
        return lent[0]

    def attempt(infer: Callable[[Observed], T], kept: Callable[[], T]) -> T:
        try:
            return infer(seen)
        except Inexpressible as missing:
            gaps.append(missing.gap)
            return kept()

    def measured(
        inferences: Mapping[str, Callable[[Observed], Any]], part: Callable[[], Any]
    ) -> dict[str, Measured[Any]]:
        entries: dict[str, Measured[Any]] = {}
        for name, infer in inferences.items():
            try:
                inferred = infer(seen)
            except Inexpressible as missing:
                gaps.append(missing.gap)
                entries[name] = Measured(
                    getattr(part(), name).value,
                    False,
                    f"not learned: {missing.gap.describe()}; kept the value of profile "
                    f"{fallback().version}",
                )
            else:
                entries[name] = Measured(inferred.value, True, inferred.evidence)
        return entries

    behaviour = measured(INFERENCES, lambda: fallback().behaviour)

    def kept(part: str, name: str) -> Any:
        found: Any = fallback()
        for step in part.split("."):
            found = getattr(found, step)
        return getattr(found, name)

    texts = {
        name: attempt(infer, functools.partial(kept, "texts", name))
        for name, infer in TEXT_INFERENCES.items()
    }
    errors: dict[str, Any] = {
        name: attempt(infer, functools.partial(kept, "errors", name))
        for name, infer in ERROR_INFERENCES.items()
    }
    errors |= {name: unobserved_error(name, version) for name in UNOBSERVED_ERRORS}
    turns = measured(TURN_INFERENCES, lambda: fallback().turns)
    turns |= {
        name: Measured(
            getattr(fallback().turns, name).value,
            False,
            f"{kept_reason(name)}; kept the value of profile {fallback().version}",
        )
        for name in NOT_INFERRED
    }
    turn_texts = {
        name: attempt(infer, functools.partial(kept, "turns.texts", name))
        for name, infer in TURN_TEXT_INFERENCES.items()
    }
    surface = surface_of(version, {name: view.record for name, view in seen.views.items()}, None)
    surface_section, surface_templates = attempt(
        lambda _: learn_surface(surface, seen.views),
        lambda: (fallback().document.surface, {}),
    )
    wire, wire_gaps = wire_document(
        version, {name: view.transcript for name, view in seen.views.items()}
    )
    gaps += wire_gaps
    for gap in wire_gaps:  # keep the fake runnable; the gap says which template is borrowed
        name = gap.field.rsplit(".", 1)[-1]
        wire.templates[name] = fallback().template(name)
    wire.templates.update(surface_templates)
    document = ProfileDocument(
        version=version,
        measured=Provenance(
            by=f"{TOOL} learn {version} (scenarios {', '.join(observations)})",
            on=today or time.strftime("%Y-%m-%d", time.gmtime()),
            wire_templates=f"wire-{version}.json",
        ),
        behaviour=Behaviour(**behaviour),
        texts=Texts(**texts),
        errors=Errors(**errors),
        turns=Turns(**turns, texts=TurnTexts(**turn_texts)),
        surface=surface_section,
    )
    return LearnedProfile(version, document, wire, gaps)
