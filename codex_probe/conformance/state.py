"""The plugin's per-run state: targets, backends made so far, baseline, outcomes, wire log.

Made on first use (`state_of`), not when pytest starts: a run whose tests never ask for
the plugin's fixtures and that gives no --codex-* option never loads the baseline, the
backends or the wire log's schema validation (the rig, aiohttp, jsonschema).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from codex_probe.conformance.options import targets_from_options
from codex_probe.conformance.target import Target

if TYPE_CHECKING:
    from codex_probe.conformance.baseline import ExpectedFailures
    from codex_probe.conformance.wire import WireLog
    from codex_probe.rig.backends import Backend


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
        from codex_probe.rig.backends import make_backend

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
    """The run's state, made from the options on first use (a wrong option: usage error)."""
    state = config.stash.get(state_key, None)
    if state is None:
        state = config.stash[state_key] = state_from_options(config)
    return state


def existing_state(config: pytest.Config) -> ConformanceState | None:
    """The run's state if anything has made it, without making it."""
    return config.stash.get(state_key, None)


def state_from_options(config: pytest.Config) -> ConformanceState:
    """The run's targets, baseline and settings, as the options ask for them."""
    from codex_probe.conformance.baseline import (
        default_baseline_path,
        load_expected_failures,
        no_expected_failures,
    )
    from codex_probe.conformance.wire import WireLog
    from codex_probe.rig.baseline import BaselineError

    targets = targets_from_options(config)
    choice = config.getoption("codex_baseline")
    try:
        if choice == "none":
            baseline: ExpectedFailures = no_expected_failures()
        else:
            path = Path(choice) if choice else default_baseline_path()
            baseline = load_expected_failures(path)
    except BaselineError as error:
        raise pytest.UsageError(str(error)) from None
    examples = config.getoption("codex_lifecycle_examples")
    if examples < 1:
        raise pytest.UsageError("--codex-lifecycle-examples must be at least 1")
    script = config.getoption("codex_fake_script")
    profile = config.getoption("codex_fake_profile")
    return ConformanceState(
        targets=targets,
        baseline=baseline,
        script=Path(script).resolve() if script else None,
        profile=Path(profile).resolve() if profile else None,
        timeout=config.getoption("codex_timeout"),
        lifecycle_examples=math.ceil(examples / len({t.version for t in targets})),
        results_path=Path(p) if (p := config.getoption("codex_results")) else None,
        wire_log=WireLog(),
    )
