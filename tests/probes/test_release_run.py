"""One release probed as a whole: every finding asked for ends holds, changed or broken."""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness.codex.install import Installation, InstallError
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.harness.jsonrpc.client import JsonRpcClient
from codex_probe.probes.domain.findings import Verdict
from codex_probe.probes.explore import release as explore_module
from codex_probe.probes.releases.learn.profile import learning_into
from codex_probe.probes.runner import release_run as release_module
from codex_probe.probes.runner import selection as selection_module
from codex_probe.probes.runner.events import (
    Event,
    ReleaseProbed,
    ReleaseStarted,
    ScenarioFinished,
    ScenarioStarted,
)
from codex_probe.probes.runner.plan import RunPlan
from codex_probe.probes.runner.release_run import run_release, run_scenarios
from codex_probe.probes.runner.selection import Selection, fidelity_id
from codex_probe.rig.backends import Backend, make_backend
from codex_probe.rig.homes import IsolatedHome
from tests.child_processes import snapshot

pytestmark = pytest.mark.real  # the fake reads its schema from the installed release


def crashing_real(tmp_path: Path) -> Any:
    """make_backend, but the 'real' codex is the fake crashing on its first thread/start."""
    script = tmp_path / "crash.jsonl"
    script.write_text(json.dumps({"method": "thread/start", "action": "crash", "exit_code": 7}))

    def make(kind: str, version: str, **options: Any) -> Backend:
        if kind == "real":
            return make_backend("fake", version, script=script)
        return make_backend(kind, version, **options)

    return make


def test_a_release_whose_codex_crashes_everywhere_gives_every_finding_broken_with_the_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, default_codex: Installation
) -> None:
    crashing = crashing_real(tmp_path)
    monkeypatch.setattr(release_module, "make_backend", crashing)
    monkeypatch.setattr(selection_module, "make_backend", crashing)
    selection = Selection.of(["start-applies-instructions", fidelity_id("start")])
    run = asyncio.run(
        run_release(
            RunPlan(DEFAULT_CODEX_VERSION, selection, learning=learning_into(tmp_path / "learned"))
        )
    )
    assert set(run.findings) == {"start-applies-instructions", "fake-fidelity-start"}
    for finding in run.findings.values():
        assert finding.verdict is Verdict.BROKEN
        assert "exit code 7" in " ".join(finding.evidence), finding.evidence
    assert run.profile is not None and run.profile.source == "checked-in"


def test_a_selection_of_assumptions_runs_only_their_scenarios_on_the_real_codex(
    tmp_path: Path, default_codex: Installation
) -> None:
    selection = Selection.of(["error-steer-wrong-turn"], fidelity=False)
    run = asyncio.run(
        run_release(
            RunPlan(DEFAULT_CODEX_VERSION, selection, learning=learning_into(tmp_path / "learned"))
        )
    )
    assert list(run.subject) == ["errors"] and run.fake == {} and run.profile is None
    assert run.findings["error-steer-wrong-turn"].verdict is Verdict.HOLDS
    assert set(run.timings) == {"real"}
    assert run.surface is None  # some findings are not the whole surface


def no_install(kind: str, version: str, **options: Any) -> Backend:
    """make_backend, on a machine where npm installs nothing."""
    raise InstallError("npm installed nothing")


def test_a_release_that_cannot_be_installed_gives_every_finding_broken_naming_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(selection_module, "make_backend", no_install)
    run = asyncio.run(
        run_release(RunPlan("0.150.0", Selection.of(None), learning=learning_into(tmp_path)))
    )
    assert len(run.findings) == len(Selection.of(None).finding_ids)
    assert {f.verdict for f in run.findings.values()} == {Verdict.BROKEN}
    assert all(
        "codex-cli 0.150.0 could not be installed: npm installed nothing" in f.evidence[0]
        for f in run.findings.values()
    )
    assert run.surface is None


def test_a_release_run_says_once_that_its_scenarios_ended_before_it_says_it_was_probed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(selection_module, "make_backend", no_install)
    monkeypatch.setattr(explore_module, "make_backend", no_install)
    said: list[str] = []

    def listen(event: Event) -> None:
        if isinstance(event, ReleaseStarted | ReleaseProbed):
            said.append(type(event).__name__)

    plan = RunPlan("0.150.0", Selection.of(None), repeat=2, learning=learning_into(tmp_path))
    run = asyncio.run(run_release(plan, listen, lambda: said.append("scenarios ended")))
    assert said == ["ReleaseStarted", "scenarios ended", "ReleaseProbed"]
    assert run.exploration == "the exploration could not run: npm installed nothing"


def fake_as_real(monkeypatch: pytest.MonkeyPatch) -> None:
    """The release run's 'real' codex-cli is the fake."""

    def make(kind: str, version: str, **options: Any) -> Backend:
        return make_backend("fake", version, **options)

    monkeypatch.setattr(release_module, "make_backend", make)
    monkeypatch.setattr(selection_module, "make_backend", make)


def test_a_release_run_says_its_scenarios_ended_when_the_subjects_end_before_the_fakes_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, default_codex: Installation
) -> None:
    # The fake's scenarios are light: a sweep starts the next release while they run.
    fake_as_real(monkeypatch)
    said: list[str] = []

    def listen(event: Event) -> None:
        if isinstance(event, ScenarioStarted | ScenarioFinished):
            said.append(f"{event.backend} {type(event).__name__}")

    selection = Selection.of(["start-applies-instructions", fidelity_id("start")])
    plan = RunPlan(DEFAULT_CODEX_VERSION, selection, learning=learning_into(tmp_path, always=True))
    asyncio.run(run_release(plan, listen, lambda: said.append("scenarios ended")))
    ended = said.index("scenarios ended")
    assert said.count("scenarios ended") == 1
    assert said[:ended] and all(line.startswith("real ") for line in said[:ended])
    assert said.count("real ScenarioFinished") == said[:ended].count("real ScenarioFinished")
    assert "fake ScenarioStarted" in said[ended:]


def test_a_release_run_reads_its_surfaces_while_the_event_loop_serves_other_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, default_codex: Installation
) -> None:
    # A sweep runs the next release on the same event loop while this one reads its book
    # and surfaces: read on the loop, they held the next one's lanes and scenarios still.
    fake_as_real(monkeypatch)
    monkeypatch.setattr(explore_module, "make_backend", no_install)
    reading, served = threading.Event(), threading.Event()
    read_surface = release_module.read_surface

    def read_while_served(*args: Any, **options: Any) -> Any:
        reading.set()
        # Only the event loop sets `served`: read on the loop itself, this waits in vain.
        assert served.wait(30), "the event loop stood still while the surface was read"
        return read_surface(*args, **options)

    monkeypatch.setattr(release_module, "read_surface", read_while_served)

    async def other_work() -> None:
        await asyncio.to_thread(reading.wait, 120)
        served.set()

    async def both() -> Any:
        plan = RunPlan(
            DEFAULT_CODEX_VERSION, Selection.of(None), learning=learning_into(tmp_path, always=True)
        )
        async with asyncio.TaskGroup() as group:
            run = group.create_task(run_release(plan))
            group.create_task(other_work())
        return run.result()

    run = asyncio.run(both())
    assert run.surface is not None and run.fake_surface is not None


@dataclass(frozen=True)
class OpenWatched(Backend):
    """The fake backend, saying when its first app-server is up."""

    opened: asyncio.Event = field(default_factory=asyncio.Event)

    async def open(self, home: IsolatedHome, **options: Any) -> JsonRpcClient:
        client = await super().open(home, **options)
        self.opened.set()
        return client


async def test_a_cancelled_run_returns_only_once_every_scenario_has_ended_its_processes(
    tmp_path: Path, default_codex: Installation
) -> None:
    # Ctrl-C is a cancellation: a run that returned while a scenario was still ending its
    # app-server left asyncio.run to cancel that cleanup half-way (a process unclosed).
    hang = tmp_path / "hang.jsonl"
    hang.write_text(json.dumps({"method": "turn/start", "action": "never_complete"}) + "\n")
    fake = make_backend("fake", DEFAULT_CODEX_VERSION, script=hang)
    backend = OpenWatched(**{f.name: getattr(fake, f.name) for f in fields(Backend)})
    names = ["start", "resume-cold", "compaction"]
    run = asyncio.create_task(run_scenarios(backend, names, asyncio.Semaphore(1)))
    async with asyncio.timeout(30):
        await backend.opened.wait()  # the first scenario's app-server is up
    assert app_servers()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert app_servers() == []


def app_servers() -> list[tuple[str, ...]]:
    return [one.cmdline for one in snapshot() if one.runs("app-server")]
