"""The Allure result of each finding, written from a run's events (the finding as it ends
up: bundled where the bundle writer bundled it), into the run's allure-results/."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from codex_probe.probes.domain.findings import Finding
from codex_probe.probes.domain.observation import ScenarioOutcome
from codex_probe.probes.runner.events import Event, FindingBundled, FindingJudged, Writer
from codex_probe.reporting.finding_results import write_finding_result

RESULTS_FOLDER = "allure-results"


class AllureResultsWriter(Writer):
    """`out`/allure-results/: one result per finding, written at the end (a finding may
    still be bundled after it is judged), what the run judged if it was interrupted."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.findings: dict[tuple[str, str], tuple[Finding, ScenarioOutcome | None]] = {}

    def handle(self, event: Event) -> Sequence[Event]:
        if isinstance(event, FindingJudged):
            self.findings[event.finding.version, event.finding.id] = (event.finding, event.outcome)
        elif isinstance(event, FindingBundled):
            key = (event.finding.version, event.finding.id)
            self.findings[key] = (event.finding, self.findings[key][1])
        return ()

    def finish(self, *, complete: bool) -> None:
        for finding, outcome in self.findings.values():
            write_finding_result(self.out / RESULTS_FOLDER, finding, outcome, self.out)
