"""Probe one codex-cli release as a RunPlan says (probes/runner/plan.py): any published
one, fitted by hand or not. `run_release(plan)` is the one entry point.

1. The scenarios run on the real codex-cli, several at a time (`jobs`).
2. The fake gets a profile: the release's checked-in one (fake_appserver/profile.py:
   `profile_for`), else one learned here and now from step 1's observations by the plan's
   learning (every scenario runs on the real one for that).
3. The scenarios run on the fake with that profile.
4. Every finding asked for is judged: the assumptions from the real observations alone
   (they never depend on the fake), the fidelity findings from both.
5. Asked for the whole set (`Selection.surface`), every scenario runs on the subject, and
   the run reads the release's surface off their records and its schema
   (codex_probe/probes/domain/surface/), and the fake's surface off the fake's: nothing more is
   started.

A release whose install fails, whose scenarios break, or whose profile cannot be had still
gives every finding asked for: `broken`, with the reason.

The run says what it does as events (codex_probe/probes/runner/events.py): each scenario
started and finished on each backend, then each finding judged, then the release probed; the
writers listen.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from codex_probe.fake_appserver.profile import profile_for
from codex_probe.harness.codex.install import InstallError, UnknownVersionError, install
from codex_probe.harness.codex.npm import NpmError
from codex_probe.harness.codex.schema import client_methods, ensure_schema
from codex_probe.harness.jsonrpc.errors import ServerError
from codex_probe.probes.domain.fidelity import fidelity_of
from codex_probe.probes.domain.findings import Finding
from codex_probe.probes.domain.judge import judge_assumption, judge_fidelity
from codex_probe.probes.domain.observation import ScenarioBroken, ScenarioOutcome
from codex_probe.probes.domain.stability import flips, steady_findings
from codex_probe.probes.domain.surface.diff import diff_surfaces
from codex_probe.probes.domain.surface.release import Surface, surface_of
from codex_probe.probes.explore.release import explore_release
from codex_probe.probes.runner.events import (
    BackendKind,
    Event,
    FindingJudged,
    Listener,
    ReleaseProbed,
    ReleaseStarted,
    ScenarioFinished,
    ScenarioStarted,
    ignore,
)
from codex_probe.probes.runner.plan import LearnFailed, Learning, RunPlan
from codex_probe.probes.runner.release import FakeProfileChoice, ReleaseRun
from codex_probe.probes.runner.scenarios import SCENARIO_HOMES, SCENARIOS
from codex_probe.probes.runner.schedule import SCHEDULE
from codex_probe.probes.runner.selection import Selection, fidelity_id
from codex_probe.probes.runner.steps import run_scenario
from codex_probe.rig.backends import Backend, BackendError, make_backend


async def run_scenarios(
    backend: Backend,
    names: Iterable[str],
    limit: asyncio.Semaphore,
    on_event: Listener = ignore,
    *,
    kind: BackendKind = "real",
) -> dict[str, ScenarioOutcome]:
    """Each scenario in its own home and wiretap, at most `limit` at a time, the longest
    first (codex_probe/probes/runner/schedule.py); the outcomes in the order of `names`."""
    names = list(names)
    order = {name: position for position, name in enumerate(names)}

    async def one(name: str) -> tuple[str, ScenarioOutcome]:
        async with limit:
            started = time.monotonic()
            on_event(ScenarioStarted(backend.version, kind, name))
            try:
                observation = await run_scenario(
                    name, SCENARIOS[name], backend, home_options=SCENARIO_HOMES.get(name)
                )
                outcome = ScenarioOutcome(observation)
            except ScenarioBroken as broken:
                outcome = ScenarioOutcome(None, broken, unsupported=_unsupported(backend, broken))
            SCHEDULE.took(kind, name, time.monotonic() - started)
            on_event(ScenarioFinished(backend.version, kind, name, outcome))
            return name, outcome

    # A task group, not gather: on Ctrl-C (a cancellation) it waits until every scenario has
    # ended its processes and removed its home; gather would return at the first cancelled
    # one, and asyncio.run would then cancel the others in the middle of their cleanup.
    async with asyncio.TaskGroup() as group:
        runs = [group.create_task(one(name)) for name in SCHEDULE.order(kind, names)]
    SCHEDULE.keep()
    return dict(sorted((run.result() for run in runs), key=lambda found: order[found[0]]))


def _unsupported(backend: Backend, broken: ScenarioBroken) -> str | None:
    """Why the release cannot run the scenario at all, when it broke on a refused method
    that the release's own generated schema does not list; None otherwise."""
    error = broken.error
    if not isinstance(error, ServerError):
        return None
    try:
        methods = client_methods(ensure_schema(install(backend.version)))
    except (InstallError, NpmError, UnknownVersionError, OSError, ValueError):
        return None
    if error.method in methods:
        return None
    return (
        f"codex-cli {backend.version} has no {error.method} (its generated schema lists "
        f"{len(methods)} client methods, not this one); the scenario needs it at step "
        f"{broken.failed_step}"
    )


def undrivable(outcomes: dict[str, ScenarioOutcome]) -> str | None:
    """Why the probes cannot drive this release at all: every scenario broke before its
    app-server answered a single step (the first failure, as codex said it); None if any
    scenario got further."""
    if not outcomes or any(o.observation is not None for o in outcomes.values()):
        return None
    broken = [o.broken for o in outcomes.values()]
    if any(b is None or b.steps for b in broken):
        return None
    first = next(b for b in broken if b is not None)
    said = first.stderr_tail.strip().splitlines()
    return f"{first}" + (f": {said[0]}" if said else "")


def _not_run(names: Iterable[str], reason: str) -> dict[str, ScenarioOutcome]:
    return {name: ScenarioOutcome(None, None, reason) for name in names}


async def run_release(
    plan: RunPlan,
    on_event: Listener = ignore,
    scenarios_ended: Callable[[], None] = lambda: None,
) -> ReleaseRun:
    """Every finding `plan` asks for on its release, probed `plan.repeat` times; see the
    module docstring. The one entry point of a release run. `scenarios_ended` is called
    once, when the last run's scenarios on the subject have ended (or failed), while its
    fake's scenarios and its exploration may still run (a sweep starts the next release
    then: probes/releases/sweep.py).

    The scenario events come as each run goes; each finding is judged (FindingJudged) once,
    after the last run: the first run's finding, made broken where the runs differ in its
    verdict or observed values (probes/domain/stability.py). Then ReleaseProbed.
    With a fake subject the assumptions are judged on the fake, and nothing is compared
    with it (the fake against itself says nothing).
    """

    def scenarios_only(event: Event) -> None:
        if isinstance(event, ScenarioStarted | ScenarioFinished):
            on_event(event)

    on_event(ReleaseStarted(plan.release))
    repeat = max(1, plan.repeat)
    runs = []
    for number in range(repeat):
        ended = Once(scenarios_ended) if number == repeat - 1 else lambda: None
        runs.append(await _run_once(plan, scenarios_only, ended))
    run = runs[0]
    run.undrivable = run.undrivable or undrivable(run.subject)
    found = [each.findings for each in runs]
    run.flips = flips(found)
    run.findings = steady_findings(found)
    run.surface_flips = surface_flips(runs)
    for finding in run.findings.values():
        on_event(FindingJudged(finding, run.outcome_of(finding)))
    on_event(ReleaseProbed(run))
    return run


def surface_flips(runs: list[ReleaseRun]) -> list[str]:
    """Every surface key whose value is not the same in every run (runs without a surface
    aside)."""
    surfaces = [run.surface for run in runs if run.surface is not None]
    flipped: dict[str, None] = {}
    for other in surfaces[1:]:
        flipped.update(dict.fromkeys(change.name for change in diff_surfaces(surfaces[0], other)))
    return list(flipped)


def read_surface(
    version: str,
    outcomes: dict[str, ScenarioOutcome],
    schema: Path | None,
    exploration: dict[str, Any] | str | None = None,
) -> Surface:
    """The surface of the scenario runs `outcomes` (one that broke is a gap) and of the
    exploration's record (or why it could not run)."""
    records = {
        name: None if outcome.observation is None else outcome.observation.to_record()
        for name, outcome in outcomes.items()
    }
    return surface_of(version, records, schema, exploration)


async def _run_once(
    plan: RunPlan, on_event: Listener, scenarios_ended: Callable[[], None]
) -> ReleaseRun:
    """The plan's release probed once: its scenarios on the subject (and on the fake, on
    the profile it gets), every finding judged, the exploration beside them where the plan
    asks for it (probes/explore/release.py), and the surfaces read when asked for."""

    async def scenarios() -> tuple[ReleaseRun, Backend | None]:
        try:
            return await _scenarios_once(plan, on_event, scenarios_ended)
        finally:
            scenarios_ended()  # where the subject's scenarios could not even start

    async with asyncio.TaskGroup() as group:  # as in run_scenarios: all end on Ctrl-C
        judged = group.create_task(scenarios())
        explored = group.create_task(
            explore_release(plan.release, plan.selection, plan.subject, plan.unanswered)
        )
    run, backend = judged.result()
    run.exploration = explored.result()
    # Seconds of pure Python (a book of ~2 MB, two surfaces): in a thread, so that the event
    # loop goes on serving what shares it meanwhile (a sweep's next release, its lanes and
    # scenarios, which stood still for it: 1.3 s a release, docs/benchmarks.md).
    await asyncio.to_thread(_read_run, plan, run, backend)
    return run


def _read_run(plan: RunPlan, run: ReleaseRun, backend: Backend | None) -> None:
    """What is read off a run once its scenarios and exploration have ended: the learned
    profile's answer book, and the surfaces asked for."""
    _learn_book(plan, run, None if backend is None else backend.schema_folder)
    if plan.selection.surface and backend is not None:
        schema = backend.schema_folder
        run.surface = read_surface(plan.release, run.subject, schema, run.exploration)
        if set(run.fake) >= set(SCENARIOS):
            run.fake_surface = read_surface(plan.release, run.fake, schema)


def _learn_book(plan: RunPlan, run: ReleaseRun, schema: Path | None) -> None:
    """The learned profile's answer book, from the exploration that ran beside the
    scenarios, written beside the profile (or why it could not be)."""
    learning, choice = plan.learning, run.profile
    if run.learned is None or learning is None or learning.book is None:
        return
    if choice is None or choice.path is None:
        return
    try:
        run.book = learning.book(run.exploration, schema, choice.path)
    except LearnFailed as error:
        run.book_problem = f"no answer book was learned: {error}"


async def _scenarios_once(
    plan: RunPlan, on_event: Listener, subject_ended: Callable[[], None]
) -> tuple[ReleaseRun, Backend | None]:
    """The scenarios of one run, every finding judged, and the subject's backend (None: it
    could not start). `subject_ended` is called as the subject's scenarios end: the fake's
    are light (the cores sat half idle while they ran, 3.4 s of a release's 16), so a
    sweep starts the next release then."""
    version, selection, subject = plan.release, plan.selection, plan.subject
    limit = asyncio.Semaphore(max(1, plan.jobs))
    if subject.kind == "fake":
        selection = replace(selection, fidelity=(), compare_with_fake=False)
    flags = subject.reproduce_flags
    try:
        subject_backend = subject.backend(version)
    except (UnknownVersionError, NpmError, InstallError, BackendError) as error:
        reason = f"codex-cli {version} could not be installed: {error}"
        if subject.kind == "fake":
            reason = f"the fake for codex-cli {version} could not start: {error}"
        observed = _not_run(selection.scenarios, reason)
        return _judged(version, selection, observed, {}, None, flags), None

    learning = plan.learning
    checked_in = None if learning is not None and learning.always else profile_for(version)
    learns = selection.compare_with_fake and checked_in is None
    subject_names = list(SCENARIOS) if learns else selection.subject_scenarios
    fake_names = selection.scenarios if selection.compare_with_fake else []

    clock = _Clock()
    if not selection.compare_with_fake:
        observed = await run_scenarios(
            subject_backend, subject_names, limit, on_event, kind=subject.kind
        )
        subject_ended()
        run = _judged(version, selection, observed, {}, None, flags)
        run.timings = clock.lap("real")
    elif checked_in is not None:
        profile = FakeProfileChoice("checked-in", checked_in)
        fake_backend, profile.problem = _fake_backend(version, checked_in)
        async with asyncio.TaskGroup() as group:  # as in run_scenarios: all end on Ctrl-C
            subject_run = group.create_task(
                run_scenarios(subject_backend, subject_names, limit, on_event)
            )
            subject_run.add_done_callback(lambda _: subject_ended())
            fake_run = group.create_task(
                _run_fake(fake_backend, fake_names, limit, profile.problem, on_event)
            )
        observed, fake = subject_run.result(), fake_run.result()
        run = _judged(version, selection, observed, fake, profile)
        run.timings = clock.lap("real")
    else:
        observed = await run_scenarios(subject_backend, subject_names, limit, on_event)
        clock.lap("real")
        subject_ended()
        run = await _learned_and_faked(
            version, selection, observed, learning, limit, on_event, clock
        )
        run.timings = clock.laps
    return run, subject_backend


async def _learned_and_faked(
    version: str,
    selection: Selection,
    observed: dict[str, ScenarioOutcome],
    learning: Learning | None,
    limit: asyncio.Semaphore,
    on_event: Listener,
    clock: _Clock,
) -> ReleaseRun:
    """The findings of a release without a checked-in profile: the fake runs on one
    learned from `observed`, the real runs of every scenario, when one can be learned."""
    fake_names = selection.scenarios
    if (cannot := undrivable(observed)) is not None:
        # Nothing to learn from: no profile is written, and the fake has nothing to imitate.
        profile = FakeProfileChoice("learned", None, problem=f"no profile was learned: {cannot}")
        run = _judged(version, selection, observed, _not_run(fake_names, cannot), profile)
        run.undrivable = cannot
        return run
    if learning is None:
        problem = f"codex-cli {version} has no checked-in profile and this run learns none"
        profile = FakeProfileChoice("learned", None, problem=problem)
        return _judged(version, selection, observed, _not_run(fake_names, problem), profile)
    observations = {n: o.observation for n, o in observed.items() if o.observation is not None}
    try:
        learned = learning.learn(version, observations)
    except LearnFailed as error:
        profile = FakeProfileChoice("learned", None, problem=f"no profile was learned: {error}")
        fake = _not_run(fake_names, profile.problem or "")
        return _judged(version, selection, observed, fake, profile)
    broke = [n for n, o in observed.items() if o.observation is None and not o.unsupported]
    lacks = [n for n, o in observed.items() if o.unsupported]
    path = learned.write(learning.folder)
    clock.lap("learn")
    profile = FakeProfileChoice("learned", path.resolve(), list(learned.gaps))
    fake_backend, cannot_start = _fake_backend(version, path)
    problems = [cannot_start] if cannot_start else []
    if broke:
        problems.append(
            f"the profile was learned without scenario(s) {', '.join(broke)}, which broke on "
            "the real codex-cli"
        )
    if lacks:
        problems.append(
            f"the profile was learned without scenario(s) {', '.join(lacks)}, which the "
            "release does not support"
        )
    profile.problem = "; ".join(problems) or None
    fake = await _run_fake(fake_backend, fake_names, limit, profile.problem, on_event)
    # Judging compares the fake's observations with the real ones (surfaces, diffs): in a
    # thread, as `_read_run`.
    run = await asyncio.to_thread(_judged, version, selection, observed, fake, profile)
    run.learned = learned
    clock.lap("fake")
    return run


class Once:
    """`action`, done on the first call only (a release run says its scenarios ended once,
    wherever they end)."""

    def __init__(self, action: Callable[[], None]) -> None:
        self.action: Callable[[], None] | None = action

    def __call__(self) -> None:
        action, self.action = self.action, None
        if action is not None:
            action()


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
    backend: Backend | None,
    names: list[str],
    limit: asyncio.Semaphore,
    problem: str | None,
    on_event: Listener,
) -> dict[str, ScenarioOutcome]:
    if backend is None:
        return _not_run(names, problem or "the fake has no profile")
    return await run_scenarios(backend, names, limit, on_event, kind="fake")


def _judged(
    version: str,
    selection: Selection,
    observed: dict[str, ScenarioOutcome],
    fake: dict[str, ScenarioOutcome],
    profile: FakeProfileChoice | None,
    reproduce_flags: str = "",
) -> ReleaseRun:
    findings: dict[str, Finding] = {}
    profile_json = profile.to_json() if profile is not None else {}
    for assumption in selection.assumptions:
        outcome = observed[assumption.scenario]
        fidelity = None
        if profile is not None and assumption.scenario in fake:
            fidelity = fidelity_of(outcome, fake[assumption.scenario])
            if fidelity is not None:
                where = {"source": profile.source, "path": profile_json["path"]}
                fidelity = replace(fidelity, profile=where)
        findings[assumption.id] = judge_assumption(
            assumption, version, outcome, fidelity, reproduce_flags=reproduce_flags
        )
    for scenario in selection.fidelity:
        findings[fidelity_id(scenario)] = judge_fidelity(
            scenario,
            version,
            observed[scenario],
            fake.get(scenario),
            {"source": profile_json.get("source"), "path": profile_json.get("path")},
            None if profile is None else profile.problem,
        )
    return ReleaseRun(version, observed, fake, profile, findings)
