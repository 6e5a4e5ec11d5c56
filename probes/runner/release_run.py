"""Probe one codex-cli release: any published one, fitted by hand or not.

1. The scenarios run on the real codex-cli, several at a time (`jobs`).
2. The fake gets a profile: the release's checked-in one, else one learned here and now
   from step 1's observations (every scenario runs on the real one for that).
3. The scenarios run on the fake with that profile.
4. Every finding asked for is judged: the assumptions from the real observations alone
   (they never depend on the fake), the fidelity findings from both.

A release whose install fails, whose scenarios break, or whose profile cannot be had still
gives every finding asked for: `broken`, with the reason.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from codex_probe.fake_appserver.profile import checked_in_path
from codex_probe.harness.codex.install import InstallError, UnknownVersionError
from codex_probe.harness.codex.npm import NpmError
from codex_probe.probes.domain.assumptions import ASSUMPTIONS, Assumption
from codex_probe.probes.domain.fidelity import fidelity_of
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX, Finding
from codex_probe.probes.domain.judge import judge_assumption, judge_fidelity
from codex_probe.probes.domain.observation import ScenarioBroken, ScenarioOutcome
from codex_probe.probes.releases.learn.observed import Gap
from codex_probe.probes.releases.learn.profile import LearnedProfile, LearnError, learn_profile
from codex_probe.probes.runner.jobs import DEFAULT_JOBS
from codex_probe.probes.runner.scenarios import SCENARIO_HOMES, SCENARIOS
from codex_probe.probes.runner.steps import run_scenario
from codex_probe.rig.backends import Backend, BackendError, make_backend

ProfileSource = Literal["checked-in", "learned"]


def fidelity_id(scenario: str) -> str:
    return f"{FIDELITY_ID_PREFIX}{scenario}"


@dataclass(frozen=True)
class Selection:
    """Which findings a run is asked for."""

    assumptions: tuple[Assumption, ...]
    fidelity: tuple[str, ...]  # scenarios whose fake-vs-real finding is asked for
    compare_with_fake: bool

    @classmethod
    def of(cls, only: Collection[str] | None = None, *, fidelity: bool = True) -> Selection:
        chosen = None if not only else set(only)
        return cls(
            assumptions=tuple(a for a in ASSUMPTIONS if chosen is None or a.id in chosen),
            fidelity=tuple(
                s for s in SCENARIOS if fidelity and (chosen is None or fidelity_id(s) in chosen)
            ),
            compare_with_fake=fidelity,
        )

    @property
    def finding_ids(self) -> list[str]:
        return [a.id for a in self.assumptions] + [fidelity_id(s) for s in self.fidelity]

    @property
    def scenarios(self) -> list[str]:
        """Every scenario a finding asked for reads, in the registry's order."""
        wanted = {a.scenario for a in self.assumptions} | set(self.fidelity)
        return [s for s in SCENARIOS if s in wanted]


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


@dataclass
class FakeProfileChoice:
    """The profile the fake ran on for a release, or why it could not run."""

    source: ProfileSource
    path: Path | None
    gaps: list[Gap] = field(default_factory=list)
    problem: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "path": None if self.path is None else str(self.path),
            "gaps": [gap.to_json() for gap in self.gaps],
            "problem": self.problem,
        }


@dataclass
class ReleaseRun:
    version: str
    real: dict[str, ScenarioOutcome]
    fake: dict[str, ScenarioOutcome]
    profile: FakeProfileChoice | None
    findings: dict[str, Finding]
    learned: LearnedProfile | None = None
    # Seconds spent per phase: "real", "learn", "fake" (real and fake overlap when the
    # profile is checked in: then "fake" is absent and "real" covers both).
    timings: dict[str, float] = field(default_factory=dict)


async def run_scenarios(
    backend: Backend, names: Iterable[str], limit: asyncio.Semaphore
) -> dict[str, ScenarioOutcome]:
    """Each scenario in its own home and wiretap, at most `limit` at a time."""

    async def one(name: str) -> tuple[str, ScenarioOutcome]:
        async with limit:
            try:
                observation = await run_scenario(
                    name, SCENARIOS[name], backend, home_options=SCENARIO_HOMES.get(name)
                )
            except ScenarioBroken as broken:
                return name, ScenarioOutcome(None, broken)
            return name, ScenarioOutcome(observation)

    # A task group, not gather: on Ctrl-C (a cancellation) it waits until every scenario has
    # ended its processes and removed its home; gather would return at the first cancelled
    # one, and asyncio.run would then cancel the others in the middle of their cleanup.
    async with asyncio.TaskGroup() as group:
        runs = [group.create_task(one(name)) for name in names]
    return dict(run.result() for run in runs)


def _not_run(names: Iterable[str], reason: str) -> dict[str, ScenarioOutcome]:
    return {name: ScenarioOutcome(None, None, reason) for name in names}


async def probe_release(
    version: str,
    selection: Selection,
    *,
    jobs: int = DEFAULT_JOBS,
    learned_dir: Path,
    always_learn: bool = False,
    subject: Subject = REAL,
) -> ReleaseRun:
    """Every finding of `selection` on codex-cli `version`; see the module docstring.

    With a fake `subject` the assumptions are judged on the fake, and nothing is compared
    with it (the fake against itself says nothing).
    """
    limit = asyncio.Semaphore(max(1, jobs))
    if subject.kind == "fake":
        selection = Selection(selection.assumptions, (), compare_with_fake=False)
    flags = subject.reproduce_flags
    try:
        real_backend = subject.backend(version)
    except (UnknownVersionError, NpmError, InstallError, BackendError) as error:
        reason = f"codex-cli {version} could not be installed: {error}"
        if subject.kind == "fake":
            reason = f"the fake for codex-cli {version} could not start: {error}"
        real = _not_run(selection.scenarios, reason)
        return _judged(version, selection, real, {}, None, flags)

    checked_in = None if always_learn else checked_in_path(version)
    learning = selection.compare_with_fake and checked_in is None
    real_names = list(SCENARIOS) if learning else selection.scenarios
    fake_names = selection.scenarios if selection.compare_with_fake else []

    clock = _Clock()
    if not selection.compare_with_fake:
        real = await run_scenarios(real_backend, real_names, limit)
        run = _judged(version, selection, real, {}, None, flags)
        run.timings = clock.lap("real")
        return run
    if checked_in is not None:
        profile = FakeProfileChoice("checked-in", checked_in)
        fake_backend, profile.problem = _fake_backend(version, checked_in)
        async with asyncio.TaskGroup() as group:  # as in run_scenarios: all end on Ctrl-C
            real_run = group.create_task(run_scenarios(real_backend, real_names, limit))
            fake_run = group.create_task(
                _run_fake(fake_backend, fake_names, limit, profile.problem)
            )
        real, fake = real_run.result(), fake_run.result()
        run = _judged(version, selection, real, fake, profile)
        run.timings = clock.lap("real")
        return run

    real = await run_scenarios(real_backend, real_names, limit)
    clock.lap("real")
    observations = {n: o.observation for n, o in real.items() if o.observation is not None}
    try:
        learned = learn_profile(version, observations)
    except LearnError as error:
        profile = FakeProfileChoice("learned", None, problem=f"no profile was learned: {error}")
        fake = _not_run(fake_names, profile.problem or "")
        return _judged(version, selection, real, fake, profile)
    broke = [n for n, o in real.items() if o.observation is None]
    path = learned.write(learned_dir)
    clock.lap("learn")
    profile = FakeProfileChoice("learned", path.resolve(), learned.gaps)
    fake_backend, cannot_start = _fake_backend(version, path)
    problems = [cannot_start] if cannot_start else []
    if broke:
        problems.append(
            f"the profile was learned without scenario(s) {', '.join(broke)}, which broke on "
            "the real codex-cli"
        )
    profile.problem = "; ".join(problems) or None
    fake = await _run_fake(fake_backend, fake_names, limit, profile.problem)
    run = _judged(version, selection, real, fake, profile)
    run.learned = learned
    run.timings = clock.lap("fake")
    return run


class _Clock:
    """Seconds per phase of a release run, lap by lap."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.monotonic()

    def lap(self, phase: str) -> dict[str, float]:
        now = time.monotonic()
        self.laps[phase] = round(now - self._last, 3)
        self._last = now
        return self.laps


def _fake_backend(version: str, profile: Path) -> tuple[Backend | None, str | None]:
    try:
        return make_backend("fake", version, profile=profile), None
    except (BackendError, InstallError, NpmError, UnknownVersionError) as error:
        return None, f"the fake could not start on {profile}: {error}"


async def _run_fake(
    backend: Backend | None, names: list[str], limit: asyncio.Semaphore, problem: str | None
) -> dict[str, ScenarioOutcome]:
    if backend is None:
        return _not_run(names, problem or "the fake has no profile")
    return await run_scenarios(backend, names, limit)


def _judged(
    version: str,
    selection: Selection,
    real: dict[str, ScenarioOutcome],
    fake: dict[str, ScenarioOutcome],
    profile: FakeProfileChoice | None,
    reproduce_flags: str = "",
) -> ReleaseRun:
    findings: dict[str, Finding] = {}
    profile_json = profile.to_json() if profile is not None else {}
    for assumption in selection.assumptions:
        outcome = real[assumption.scenario]
        fidelity = None
        if profile is not None and assumption.scenario in fake:
            fidelity = fidelity_of(outcome, fake[assumption.scenario])
            if fidelity is not None:
                fidelity["profile"] = {"source": profile.source, "path": profile_json["path"]}
        findings[assumption.id] = judge_assumption(
            assumption, version, outcome, fidelity, reproduce_flags=reproduce_flags
        )
    for scenario in selection.fidelity:
        findings[fidelity_id(scenario)] = judge_fidelity(
            scenario,
            version,
            real[scenario],
            fake.get(scenario),
            {"source": profile_json.get("source"), "path": profile_json.get("path")},
            None if profile is None else profile.problem,
        )
    return ReleaseRun(version, real, fake, profile, findings)
