"""verdict.json, written from a run's events: every finding judged (bundled where the
bundle writer bundled it), what each release's run was made of, and, at the end, whether
every finding asked for got one (an interrupted run's file says which it lacks)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.seal import describe_sealing
from codex_probe.harness.files import write_json
from codex_probe.probes.domain.verdict_file import VerdictReport
from codex_probe.probes.runner.events import (
    Event,
    FindingBundled,
    FindingJudged,
    ReleaseProbed,
    Writer,
)


class VerdictWriter(Writer):
    """`path` (verdict.json) for the findings `asked` ("VERSION:ID" each); `facts` are how
    the whole run was made (its subject, its repeats), beside what each release's run says
    of itself (its fake profile, flips, sealing, why it could not be driven)."""

    def __init__(self, path: Path, asked: Iterable[str], facts: dict[str, Any]) -> None:
        self.path = path
        self.asked = list(asked)
        self.report = VerdictReport()
        self.facts = facts
        self.fake_profiles: dict[str, dict[str, Any]] = {}
        self.flips: dict[str, dict[str, dict[str, int]]] = {}
        self.sealing: dict[str, dict[str, Any]] = {}
        self.undrivable: dict[str, str] = {}
        self.surface_flips: dict[str, list[str]] = {}

    def handle(self, event: Event) -> Sequence[Event]:
        if isinstance(event, FindingJudged | FindingBundled):
            self.report.add(event.finding)
        elif isinstance(event, ReleaseProbed):
            run = event.run
            if run.undrivable is not None:
                self.undrivable[run.version] = run.undrivable
            if run.profile is not None and run.profile.path is not None:
                self.fake_profiles[run.version] = run.profile.to_json()
            if run.flips:
                self.flips[run.version] = {i: dict(tally) for i, tally in run.flips.items()}
            self.sealing[run.version] = describe_sealing()
            if run.surface_flips:
                self.surface_flips[run.version] = run.surface_flips
        return ()

    def start(self) -> None:
        # Until the run ends, verdict.json says it is incomplete: a run killed with -9 leaves
        # that, never an earlier run's verdict or none (`report` and the gate say so).
        self._write(complete=False)

    def finish(self, *, complete: bool) -> None:
        self._write(complete=complete)

    def _write(self, *, complete: bool) -> None:
        report = self.report
        recorded = {f"{v}:{i}" for v, found in report.findings.items() for i in found}
        report.missing = tuple(f for f in self.asked if f not in recorded)
        # A verdict that lacks a finding asked for says so: the gate takes it for no verdict.
        report.complete = complete and not report.missing
        report.facts = {
            "fake_profiles": self.fake_profiles,
            **self.facts,
            "flips": self.flips,
            "sealing": self.sealing,
            "undrivable": self.undrivable,
            "surface_flips": self.surface_flips,
        }
        write_json(self.path, report.to_json())
