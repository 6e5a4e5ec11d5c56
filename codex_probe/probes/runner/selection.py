"""What a run is asked for (which findings) and what it is about (the real codex-cli, or
the fake under a fault script)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from codex_probe.probes.domain.assumptions import ASSUMPTIONS, Assumption
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX
from codex_probe.probes.runner.scenarios import SCENARIOS
from codex_probe.rig.backends import Backend, make_backend


def fidelity_id(scenario: str) -> str:
    return f"{FIDELITY_ID_PREFIX}{scenario}"


@dataclass(frozen=True)
class Selection:
    """Which findings a run is asked for."""

    assumptions: tuple[Assumption, ...]
    fidelity: tuple[str, ...]  # scenarios whose fake-vs-real finding is asked for
    compare_with_fake: bool
    # The release's surface too: every scenario runs on the subject
    # (codex_probe/probes/domain/surface/), or only `surface_scenarios` when a part of the surface
    # is enough (bisect --surface).
    surface: bool = False
    surface_scenarios: tuple[str, ...] | None = None
    # With `surface_scenarios`: the exploration's cells to run (`METHOD STATE VARIANT`);
    # the whole surface runs every cell (codex_probe/probes/explore/release.py).
    explore_cells: tuple[str, ...] = ()

    @classmethod
    def of(cls, only: Collection[str] | None = None, *, fidelity: bool = True) -> Selection:
        """The findings `only` names (all without it, and then the surface too)."""
        chosen = None if not only else set(only)
        return cls(
            assumptions=tuple(a for a in ASSUMPTIONS if chosen is None or a.id in chosen),
            fidelity=tuple(
                s for s in SCENARIOS if fidelity and (chosen is None or fidelity_id(s) in chosen)
            ),
            compare_with_fake=fidelity,
            surface=not only,
        )

    @classmethod
    def surface_only(
        cls, scenarios: tuple[str, ...] | None = None, explore_cells: tuple[str, ...] = ()
    ) -> Selection:
        """No finding, only the release's surface: every scenario on the real codex-cli and
        the whole exploration, or the scenarios and exploration cells named (none: the
        schema alone)."""
        return cls(
            (),
            (),
            compare_with_fake=False,
            surface=True,
            surface_scenarios=scenarios,
            explore_cells=explore_cells,
        )

    @property
    def finding_ids(self) -> list[str]:
        return [a.id for a in self.assumptions] + [fidelity_id(s) for s in self.fidelity]

    @property
    def scenarios(self) -> list[str]:
        """Every scenario a finding asked for reads, in the registry's order."""
        wanted = {a.scenario for a in self.assumptions} | set(self.fidelity)
        return [s for s in SCENARIOS if s in wanted]

    @property
    def subject_scenarios(self) -> list[str]:
        """The scenarios run on the subject: those the findings read, or all of them for
        the surface."""
        if not self.surface:
            return self.scenarios
        return list(SCENARIOS if self.surface_scenarios is None else self.surface_scenarios)


@dataclass(frozen=True)
class Subject:
    """What a run's findings are about: the real codex-cli (the point of it all), or the
    fake under a fault script, to show how findings break or to test a harness change
    without codex."""

    kind: Literal["real", "fake"] = "real"
    script: Path | None = None
    profile: Path | None = None  # the fake's profile file (default: the checked-in one)

    def backend(self, version: str) -> Backend:
        return make_backend(self.kind, version, script=self.script, profile=self.profile)

    @property
    def reproduce_flags(self) -> str:
        if self.kind == "real":
            return ""
        flags = " --backend fake"
        if self.script is not None:
            flags += f" --fake-script {self.script}"
        if self.profile is not None:
            flags += f" --fake-profile {self.profile}"
        return flags

    def to_json(self) -> dict[str, Any]:
        return {
            "backend": self.kind,
            "fake_script": None if self.script is None else str(self.script),
            "fake_profile": None if self.profile is None else str(self.profile),
        }


REAL = Subject()
