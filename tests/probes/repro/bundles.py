"""Helpers of the reproduction-bundle tests: a scenario run, its bundle, the bundle run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codex_probe.probes.domain.assumptions import BY_ID
from codex_probe.probes.domain.findings import Finding
from codex_probe.probes.domain.judge import judge_assumption
from codex_probe.probes.domain.observation import ScenarioBroken, ScenarioOutcome
from codex_probe.probes.releases.repro.bundle import write_bundle
from codex_probe.probes.runner.scenarios import SCENARIO_HOMES, SCENARIOS
from codex_probe.probes.runner.steps import run_scenario
from codex_probe.rig.backends import Backend

# What upstream types: python3 (this interpreter where none is on PATH).
PYTHON3 = shutil.which("python3") or sys.executable
# A bundle run's own deadline in these tests: far above what a run takes.
RUN_DEADLINE_S = 120.0


async def scenario_outcome(backend: Backend, scenario: str, work_dir: Path) -> ScenarioOutcome:
    """The scenario on `backend`, as a release run gets it: an observation or how it broke."""
    try:
        observation = await run_scenario(
            scenario,
            SCENARIOS[scenario],
            backend,
            work_dir=work_dir,
            home_options=SCENARIO_HOMES.get(scenario),
        )
    except ScenarioBroken as broken:
        return ScenarioOutcome(None, broken)
    return ScenarioOutcome(observation)


async def bundled(
    backend: Backend, finding_id: str, folder: Path, work_dir: Path
) -> tuple[Finding, Path]:
    """The finding judged on a run of its scenario on `backend`, and its bundle in `folder`."""
    assumption = BY_ID[finding_id]
    outcome = await scenario_outcome(backend, assumption.scenario, work_dir)
    finding = judge_assumption(assumption, backend.version, outcome)
    write_bundle(folder, finding, outcome)
    return finding, folder


@dataclass(frozen=True)
class BundleRun:
    exit_code: int
    result: dict[str, Any]  # what --json printed ({} when nothing was)
    stderr: str


def run_bundle(folder: Path, codex: Path | str, *options: str) -> BundleRun:
    """`python3 -I -S reproduce.py --codex CODEX --json`: no site-packages, no codex-probe."""
    script = str(folder / "reproduce.py")
    done = subprocess.run(
        [PYTHON3, "-I", "-S", script, "--codex", str(codex), "--json", *options],
        capture_output=True,
        text=True,
        timeout=RUN_DEADLINE_S,
        check=False,
    )
    result = json.loads(done.stdout) if done.stdout.strip() else {}
    return BundleRun(done.returncode, result, done.stderr)
