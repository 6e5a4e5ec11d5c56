"""The plugin's per-run state: targets, backends made so far, baseline, outcomes, wire log."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conformance.baseline import Baseline
from conformance.registry import Check
from conformance.target import Target
from conformance.wire import WireLog
from harness.codex.schema import schema_hash
from rig.backends import Backend, make_backend


@dataclass
class ConformanceState:
    targets: list[Target]
    baseline: Baseline
    script: Path | None
    # The fake's profile file (--fake-profile); None: each version's checked-in one.
    profile: Path | None
    timeout: float
    # Stateful sequences per target (the per-backend count shared out over the versions).
    lifecycle_examples: int
    results_path: Path | None
    wire_log: WireLog
    used: bool = False
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

    def header_lines(self) -> list[str]:
        kinds = ", ".join(dict.fromkeys(t.kind for t in self.targets))
        lines = [f"codex-probe conformance: backends {kinds}"]
        for version in dict.fromkeys(t.version for t in self.targets):
            target = next(t for t in self.targets if t.version == version)
            try:
                schema = self.backend(target).schema_dir
                lines.append(f"  codex-cli {version}: schema {schema_hash(schema)} ({schema})")
            except Exception as error:
                lines.append(f"  codex-cli {version}: unavailable ({error})")
        if self.script is not None:
            lines.append(f"  fake fault script: {self.script}")
        if self.profile is not None:
            lines.append(f"  fake profile: {self.profile}")
        where = self.baseline.path or "none"
        lines.append(f"  baseline: {where} ({len(self.baseline.entries)} entries)")
        lines.append(
            f"  lifecycle: {self.lifecycle_examples} sequences per target, "
            f"deadline {self.timeout:g}s per request"
        )
        return lines

    def record(self, check: Check, target: Target, outcome: str, message: str) -> None:
        self.results.append(
            {
                "check": check.id,
                "target": target.label,
                "backend": target.kind,
                "version": target.version,
                "outcome": outcome,
                "protects": check.protects,
                "message": message[:4000],
            }
        )

    def summary_lines(self) -> list[str]:
        counts = Counter(r["outcome"] for r in self.results)
        lines = ["checks: " + ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))]
        for result in self.results:
            if result["outcome"] != "passed":
                first = (result["message"].strip().splitlines() or [""])[0][:160]
                lines.append(
                    f"  {result['outcome']:<16} {result['check']} [{result['target']}] {first}"
                )
        return lines


state_key = pytest.StashKey[ConformanceState]()


def state_of(config: pytest.Config) -> ConformanceState:
    return config.stash[state_key]
