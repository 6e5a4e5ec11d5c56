"""The plugin's per-run state: targets, backends made so far, baseline, outcomes, wire log."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conformance.baseline import ExpectedFailures
from conformance.registry import ConformanceCheck
from conformance.target import Target
from conformance.wire import WireLog
from rig.backends import Backend, make_backend


@dataclass
class ConformanceState:
    targets: list[Target]
    baseline: ExpectedFailures
    script: Path | None
    # The fake's profile file (--codex-fake-profile); None: each version's checked-in one.
    profile: Path | None
    timeout: float
    # Stateful sequences per target (the per-backend count shared out over the versions).
    lifecycle_examples: int
    results_path: Path | None
    wire_log: WireLog
    used: bool = False
    header_written: bool = False
    results: list[dict[str, Any]] = field(default_factory=list)
    _backends: dict[Target, Backend] = field(default_factory=dict)
    _failures: dict[Target, str] = field(default_factory=dict)

    def backend(self, target: Target) -> Backend:
        """The backend of `target`, made once per run; a failure is remembered and re-raised."""
        if target in self._failures:
            raise RuntimeError(f"backend {target.label} is unavailable: {self._failures[target]}")
        if target not in self._backends:
            try:
                fake = target.kind == "fake"
                self._backends[target] = make_backend(
                    target.kind,
                    target.version,
                    script=self.script if fake else None,
                    profile=self.profile if fake else None,
                )
            except Exception as error:
                self._failures[target] = f"{type(error).__name__}: {error}"
                raise
        return self._backends[target]

    def keep(self, report: pytest.TestReport) -> None:
        """Keep the outcome a check's report carries (see `record_outcome`)."""
        entry = getattr(report, OUTCOME_ATTRIBUTE, None)
        if isinstance(entry, dict):
            self.used = True
            self.results.append(entry)


# The report attribute a check's outcome travels in: pytest-xdist sends a worker's reports
# to the main process with their attributes, so the outcomes are counted where they are
# shown, whether the tests ran in this process or on workers.
OUTCOME_ATTRIBUTE = "codex_conformance_outcome"


def record_outcome(
    report: pytest.TestReport,
    check: ConformanceCheck,
    target: Target,
    outcome: str,
    message: str,
) -> None:
    setattr(
        report,
        OUTCOME_ATTRIBUTE,
        {
            "check": check.id,
            "target": target.label,
            "backend": target.kind,
            "version": target.version,
            "outcome": outcome,
            "protects": check.protects,
            "message": message[:4000],
        },
    )


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is a pytest-xdist worker (its reports go to the main process)."""
    return hasattr(config, "workerinput")


state_key = pytest.StashKey[ConformanceState]()


def state_of(config: pytest.Config) -> ConformanceState:
    return config.stash[state_key]
