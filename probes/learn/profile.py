"""Assemble a fake profile of one release from its real observations, and write it.

Each behaviour entry is `measured: true` with evidence naming the scenario and step it
came from. Where the profile language cannot express what was observed, the entry keeps
the value of the nearest checked-in profile, says `measured: false` and why, and the gap
is reported: a learned profile never approximates silently.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from fake_appserver.profile import (
    Behaviour,
    Errors,
    Measured,
    Profile,
    ProfileDocument,
    Provenance,
    Texts,
    WireDocument,
    available_versions,
    encode_document,
    load_profile,
)
from harness.codex.versions import version_key
from probes.files import write_text_atomically
from probes.learn.behaviour import INFERENCES
from probes.learn.errors import ERROR_INFERENCES
from probes.learn.reading import Gap, Inexpressible, Observed
from probes.learn.texts import TEXT_INFERENCES
from probes.learn.wire_capture import wire_document
from probes.scenario import Observation
from probes.tool import TOOL

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


def nearest_checked_in(version: str) -> Profile:
    """The checked-in profile closest below `version` (else the lowest above it)."""
    versions = available_versions()
    below = [v for v in versions if version_key(v) <= version_key(version)]
    return load_profile(below[-1] if below else versions[0])


def learn_profile(
    version: str, observations: Mapping[str, Observation], *, today: str | None = None
) -> LearnedProfile:
    """The profile of `version` as its real observations (scenario -> observation) show it."""
    seen = Observed(observations)
    fallback = nearest_checked_in(version)
    gaps: list[Gap] = []

    def attempt(infer: Callable[[Observed], T], kept: T) -> T:
        try:
            return infer(seen)
        except Inexpressible as missing:
            gaps.append(missing.gap)
            return kept

    behaviour: dict[str, Measured[Any]] = {}
    for name, infer in INFERENCES.items():
        try:
            inferred = infer(seen)
        except Inexpressible as missing:
            gaps.append(missing.gap)
            behaviour[name] = Measured(
                getattr(fallback.behaviour, name).value,
                False,
                f"not learned: {missing.gap.describe()}; kept the value of profile "
                f"{fallback.version}",
            )
        else:
            behaviour[name] = Measured(inferred.value, True, inferred.evidence)
    texts = {
        name: attempt(infer, getattr(fallback.texts, name))
        for name, infer in TEXT_INFERENCES.items()
    }
    errors = {
        name: attempt(infer, getattr(fallback.errors, name))
        for name, infer in ERROR_INFERENCES.items()
    }
    wire, wire_gaps = wire_document(
        version, {name: obs.transcript for name, obs in observations.items()}
    )
    gaps += wire_gaps
    for gap in wire_gaps:  # keep the fake runnable; the gap says which template is borrowed
        name = gap.field.rsplit(".", 1)[-1]
        wire.templates[name] = fallback.template(name)
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
    )
    return LearnedProfile(version, document, wire, gaps)
