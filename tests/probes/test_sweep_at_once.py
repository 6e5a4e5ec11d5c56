"""The sweep of a history probes releases in version order, each after its install: N run
their scenarios at once, and one release more may be ending its exploration beside them;
what stops one release stops the sweep with that error itself.

The releases' runs here stand in for run_release (they wait on each other through events,
which a real codex run cannot be made to do); the real history over real releases is
tests/probes/test_across_releases.py."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness.codex.cache import CACHE_ENV
from codex_probe.harness.codex.install import Installation, NoPlatformBinaryError
from codex_probe.probes.releases import budget, sweep
from codex_probe.probes.releases.history import new_history
from codex_probe.probes.runner.plan import RunPlan
from codex_probe.probes.runner.release import ReleaseRun

RELEASES = ["0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0"]


class Releases:
    """Stand-ins for install and run_release that record what ran when."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = tmp_path / "cache"
        monkeypatch.setenv(CACHE_ENV, str(self.root))
        self.installed: list[str] = []
        self.started: list[str] = []
        self.running: set[str] = set()
        self.in_scenarios: set[str] = set()
        self.most_at_once = 0
        self.most_in_scenarios = 0
        self.said: list[tuple[str, str]] = []
        self.no_binary: set[str] = set()
        self.fails: dict[str, Exception] = {}
        self.at_once = 1
        self.plans: list[RunPlan] = []
        self.changed: asyncio.Condition | None = None
        monkeypatch.setattr(sweep, "install", self.install)
        monkeypatch.setattr(budget, "install", self.install)
        monkeypatch.setattr(sweep, "run_release", self.run_release)

    def install(self, version: str) -> Installation:
        if version in self.no_binary:
            raise NoPlatformBinaryError(f"codex-cli {version} has no linux-x64 binary")
        if version not in self.installed:
            self.installed.append(version)
        return Installation(version, self.root / version)

    async def run_release(
        self, plan: RunPlan, on_event: Any, scenarios_ended: Callable[[], None]
    ) -> ReleaseRun:
        version = plan.release
        self.plans.append(plan)
        assert version in self.installed, f"{version} ran before its install"
        self.changed = self.changed or asyncio.Condition()
        await self._change(version, "started", self.running.add, self.in_scenarios.add)
        try:
            # Its scenarios last until as many run theirs as may, then the rest of its run
            # until as many runs are in flight as may and the next release has started (or
            # every release has, or a deadline, if the sweep holds one back), so the counts
            # seen are what the sweep allows.
            await self._until(lambda: len(self.in_scenarios) >= self.at_once)
            if version in self.fails:
                raise self.fails[version]
            await self._change(version, "scenarios ended", self.in_scenarios.discard)
            scenarios_ended()
            after = RELEASES[RELEASES.index(version) + 1 :]
            await self._until(
                lambda: len(self.running) > self.at_once and set(after[:1]) <= set(self.started)
            )
        finally:
            await self._change(version, "ended", self.running.discard, self.in_scenarios.discard)
        return ReleaseRun(version, {}, {}, None, {})

    async def _change(self, version: str, what: str, *changes: Callable[[str], None]) -> None:
        assert self.changed is not None
        async with self.changed:
            for change in changes:
                change(version)
            self.said.append((version, what))
            if what == "started":
                self.started.append(version)
            self.most_at_once = max(self.most_at_once, len(self.running))
            self.most_in_scenarios = max(self.most_in_scenarios, len(self.in_scenarios))
            self.changed.notify_all()

    async def _until(self, enough: Callable[[], bool]) -> None:
        assert self.changed is not None
        async with self.changed:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(5):
                    await self.changed.wait_for(lambda: enough() or self._everything_started())

    def _everything_started(self) -> bool:
        return len(self.started) + len(self.no_binary) == len(RELEASES)

    def sweep(self, out: Path, at_once: int) -> list[str]:
        said: list[str] = []
        self.at_once = at_once
        sweep.sweep(
            RELEASES,
            out,
            new_history(),
            jobs=1,
            keep_installs=10,
            writers_for=lambda version, folder: [],
            say=said.append,
            at_once=at_once,
        )
        return said


@pytest.mark.parametrize("at_once", [1, 2, 3])
def test_a_sweep_runs_at_once_releases_scenarios_together_and_one_release_more_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at_once: int
) -> None:
    releases = Releases(tmp_path, monkeypatch)
    said = releases.sweep(tmp_path / "history", at_once)
    assert releases.started == RELEASES
    assert releases.most_in_scenarios == at_once
    assert releases.most_at_once == at_once + 1
    assert sorted(line.split("]")[0] for line in said) == [f"[{n}/5" for n in range(1, 6)]


def test_the_next_release_starts_when_the_scenarios_before_it_end_while_that_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    releases = Releases(tmp_path, monkeypatch)
    releases.sweep(tmp_path / "history", 1)
    said = releases.said
    for before, after in itertools.pairwise(RELEASES):
        started = said.index((after, "started"))
        assert said.index((before, "scenarios ended")) < started < said.index((before, "ended"))


def test_a_release_without_a_binary_is_recorded_and_frees_its_place_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    releases = Releases(tmp_path, monkeypatch)
    releases.no_binary = {"0.2.0"}
    out = tmp_path / "history"
    said = releases.sweep(out, 2)
    assert releases.started == ["0.1.0", "0.3.0", "0.4.0", "0.5.0"]
    assert releases.most_in_scenarios == 2 and releases.most_at_once == 3
    assert "[2/5] 0.2.0: not installable: codex-cli 0.2.0 has no linux-x64 binary" in said
    assert '"0.2.0"' in (out / "history.json").read_text()


def test_what_stops_one_release_stops_the_sweep_as_itself_not_as_a_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    releases = Releases(tmp_path, monkeypatch)
    releases.fails = {"0.2.0": OSError(28, "No space left on device")}
    with pytest.raises(OSError, match="No space left on device"):
        releases.sweep(tmp_path / "history", 2)
    assert "0.5.0" not in releases.started
    assert not releases.running


def test_every_release_of_a_sweep_shares_what_the_explorations_learnt_goes_unanswered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    releases = Releases(tmp_path, monkeypatch)
    releases.sweep(tmp_path / "history", 2)
    shared = {id(plan.unanswered) for plan in releases.plans}
    assert len(releases.plans) == len(RELEASES)
    assert len(shared) == 1 and releases.plans[0].unanswered is not None
