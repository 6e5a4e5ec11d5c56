"""The plugin's per-run state: targets, backends made so far, baseline, outcomes, wire log."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from codex_probe.conformance.baseline import ExpectedFailures
from codex_probe.conformance.target import Target
from codex_probe.conformance.wire import WireLog
from codex_probe.rig.backends import Backend, make_backend


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


state_key = pytest.StashKey[ConformanceState]()


def state_of(config: pytest.Config) -> ConformanceState:
    return config.stash[state_key]
