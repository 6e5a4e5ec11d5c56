"""Probe every release of a range into a history folder, in version order: a release starts
once the one before it has run its scenarios on the real codex-cli, while that one's fake
runs its scenarios and its exploration ends (`--at-once N`: N releases' scenarios at a
time).

Why not one release after the other: a release on its own keeps the two cores busy only
part of its time. Sampled on 0.161.0 (`history` of the one release): both cores busy for
the first 12 s, while the scenarios and the exploration's lanes run; then 1.0 to 1.5 cores
for 8 s while the exploration's last lanes wait on codex (turns held in flight,
notifications that never come: probes/explore/waits.py), and one core for the last second
(the surface read). Started when the scenarios end, the next release fills that tail; started
when the real codex-cli's end, it also fills the 3 to 4 s of the fake's scenarios, which
leave a core half idle (4 releases of 0.160.0 to 0.162.0, 3 pairs: 0.94x the wall). Two
releases started together instead (`--at-once 2` before this) ran their busy parts side by
side, which saved 4 % and tipped a race of codex into false change points (DEFAULT_AT_ONCE).

A release starts once its install is done and its turn has come; as it takes its place in
line the next one installs in the background (npm is I/O, the probes are CPU), and installs
this run made are trimmed to a budget. Each release's run feeds the command's writers of that
release (codex_probe/cli/commands/history.py lists them: its bundles, verdict.json and
surface.json, as a probe run writes them, and its record in history.json with the grid,
`HistoryRecord`), which write as soon as it ends, so an interrupted sweep keeps every
release it finished.
"""

from __future__ import annotations

import asyncio
import functools
import shutil
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.install import (
    Installation,
    InstallError,
    NoPlatformBinaryError,
    UnknownVersionError,
    install,
)
from codex_probe.harness.codex.npm import NpmError
from codex_probe.harness.files import inside, write_text_atomically
from codex_probe.harness.interrupts import run_interruptible
from codex_probe.probes.domain.findings import Verdict
from codex_probe.probes.explore.unanswered import Unanswered
from codex_probe.probes.releases.budget import InstallBudget
from codex_probe.probes.releases.grid import render_html, render_svg
from codex_probe.probes.releases.history import (
    HISTORY_FILE,
    is_current,
    release_entry,
    save_history,
    unavailable_entry,
)
from codex_probe.probes.releases.learn.profile import learning_into
from codex_probe.probes.releases.repro.bundle import REPRO_FOLDER
from codex_probe.probes.runner.events import Event, ReleaseProbed, Writer, Writers
from codex_probe.probes.runner.plan import RunPlan
from codex_probe.probes.runner.release_run import Once, run_release
from codex_probe.probes.runner.selection import Selection

GRID_SVG, GRID_HTML = "history.svg", "history.html"
INSTALL_ERRORS = (UnknownVersionError, NpmError, InstallError)
# Releases whose scenarios run at once by default: one, beside its own exploration and the
# end of the release before it. Two releases entirely at once (6ccfdef) filled two cores,
# but in the one whole history run so `thread/archive in-flight minimal` alternated between
# two values at every release from 0.120.0 to 0.131.0: a race in codex that the busier
# harness tips one way or the other. A false change point costs a history's readers more
# than minutes.
DEFAULT_AT_ONCE = 1


def to_probe(releases: list[str], document: dict[str, Any]) -> list[str]:
    """The releases without a current record; a record with a broken finding is retried."""
    recorded = document["releases"]
    return [
        v
        for v in releases
        if not (v in recorded and is_current(recorded[v]) and not _retried(recorded[v]))
    ]


def _retried(entry: dict[str, Any]) -> bool:
    """A record with a broken finding, or of a release not installable that the registry
    did not say is so for good (recorded before the registry was asked): tried again."""
    return _has_broken(entry) or (bool(entry.get("unavailable")) and not entry.get("permanent"))


def _has_broken(entry: dict[str, Any]) -> bool:
    return any(f.get("verdict") == "broken" for f in entry["findings"].values())


def write_grid(out: Path, document: dict[str, Any]) -> None:
    write_text_atomically(out / GRID_SVG, render_svg(document))
    write_text_atomically(out / GRID_HTML, render_html(document, GRID_SVG))


WritersFor = Callable[[str, Path], list[Writer]]


def sweep(
    releases: list[str],
    out: Path,
    document: dict[str, Any],
    *,
    jobs: int,
    keep_installs: int,
    writers_for: WritersFor,
    say: Callable[[str], None],
    at_once: int = DEFAULT_AT_ONCE,
) -> None:
    """Probe each release of `releases` into `document` (saved under `out` as it goes),
    `at_once` of them at a time: each release's run feeds `writers_for(version, folder)`,
    the command's writers of the release's folder (`out`/releases/VERSION), and then its
    record in history.json."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="prefetch") as prefetcher:
        run = _Sweep(releases, out, document, jobs, keep_installs, writers_for, say, prefetcher)
        run_interruptible(functools.partial(run.all, max(1, at_once)))


class _Sweep:
    """One sweep's releases, in version order: each one's install awaited (the next one
    installs in the background as a release takes its place in line), then its run, once
    fewer than `at_once` releases run their scenarios and fewer than `at_once + 1` are
    in flight (the others' explorations ending; see the module)."""

    def __init__(
        self,
        releases: list[str],
        out: Path,
        document: dict[str, Any],
        jobs: int,
        keep_installs: int,
        writers_for: WritersFor,
        say: Callable[[str], None],
        prefetcher: ThreadPoolExecutor,
    ) -> None:
        self.releases, self.out, self.jobs = releases, out, jobs
        self.writers_for, self.say, self.prefetcher = writers_for, say, prefetcher
        self.record = HistoryRecord(out, document)
        self.budget = InstallBudget(keep_installs)
        self.selection = Selection.of(None, fidelity=True)
        self.installs: dict[str, Future[Installation]] = {}
        self.running: set[str] = set()
        # What one release's exploration learns goes unanswered shortens the waits of the
        # releases after it (0.121.0 to 0.125.0 each leave some 15 turn/interrupt calls
        # unanswered, and each lane's first one waited the full deadline).
        self.unanswered = Unanswered()

    def _prefetch(self, position: int) -> None:
        if position < len(self.releases):
            version = self.releases[position]
            self.installs[version] = self.prefetcher.submit(install, version)

    async def all(self, at_once: int) -> None:
        slots = asyncio.Semaphore(at_once + 1)  # releases in flight: scenarios, and one ending
        scenarios = asyncio.Semaphore(at_once)  # releases running their scenarios
        self._prefetch(0)
        try:
            async with asyncio.TaskGroup() as group:
                for position, version in enumerate(self.releases):
                    await slots.acquire()
                    failure = await _finish(self.installs.pop(version))
                    self._prefetch(position + 1)
                    if not self._installed(position, version, failure):
                        slots.release()
                        continue
                    await scenarios.acquire()  # here, so that releases start in order
                    started = time.monotonic()
                    turn = Once(scenarios.release)
                    group.create_task(self._one(position, version, started, slots, turn))
        except BaseExceptionGroup as failed:
            # What stopped a release stops the sweep, as it did one release at a time: the
            # caller's handlers (a full disk, Ctrl-C) see the error itself, not a group.
            raise _first(failed) from None

    def _installed(self, position: int, version: str, failure: Exception | None) -> bool:
        """Whether `version` is to be probed, its install counted against the budget."""
        if isinstance(failure, NoPlatformBinaryError):
            # The registry has no binary of it for this platform (0.142.1 lacks its
            # platform package): nobody here can use this release, for good. Any other
            # failed install is this machine's (a full disk, the network): the probe run
            # tries again and its findings are broken, so the next run retries it.
            self.record.unavailable(version, str(failure))
            self.say(f"[{position + 1}/{len(self.releases)}] {version}: not installable: {failure}")
            return False
        if failure is None:
            following = set(self.installs)  # the next one, installing now
            self.budget.use(version, protect={*self.running, *following})
            for kept, why in self.budget.kept.items():
                self.say(f"  kept {kept} over the install budget: {why}")
        return True

    async def _one(
        self,
        position: int,
        version: str,
        started: float,
        slots: asyncio.Semaphore,
        scenarios_ended: Once,
    ) -> None:
        self.running.add(version)
        try:
            folder = inside(self.out, "releases", version)
            shutil.rmtree(folder / REPRO_FOLDER, ignore_errors=True)  # an earlier run's
            writers = Writers([*self.writers_for(version, folder), self.record])
            plan = RunPlan(
                version,
                self.selection,
                jobs=self.jobs,
                learning=learning_into(folder / "learned"),
                unanswered=self.unanswered,
            )
            self.record.begin(version, started)
            writers.start()
            run = await run_release(plan, writers, scenarios_ended)
            writers.finish(complete=True)
        finally:
            self.running.discard(version)
            scenarios_ended()  # if the run ended before its scenarios did
            slots.release()
        counts = {v: 0 for v in Verdict}
        for finding in run.findings.values():
            counts[finding.verdict] += 1
        self.say(
            f"[{position + 1}/{len(self.releases)}] {version}: "
            + ", ".join(f"{n} {v.value}" for v, n in counts.items() if n)
            + f" ({run.profile.source if run.profile else 'no'} fake profile) "
            f"in {time.monotonic() - started:.1f} s"
        )


def _first(failed: BaseExceptionGroup) -> BaseException:
    """The first error of a group that is not a cancellation (the others' end)."""
    for error in failed.exceptions:
        if isinstance(error, BaseExceptionGroup):
            return _first(error)
        if not isinstance(error, asyncio.CancelledError):
            return error
    return failed.exceptions[0]


class HistoryRecord(Writer):
    """history.json's record of each release probed (and the grid drawn from it), saved
    as soon as the release's run ends, so an interrupted sweep keeps what it finished."""

    def __init__(self, out: Path, document: dict[str, Any]) -> None:
        self.out, self.document = out, document
        self.started: dict[str, float] = {}

    def begin(self, version: str, started: float) -> None:
        """`version`'s run began at `started`: its seconds count from then (and overlap
        the end of the release before it)."""
        self.started[version] = started

    def handle(self, event: Event) -> Sequence[Event]:
        if isinstance(event, ReleaseProbed):
            version = event.run.version
            seconds = time.monotonic() - self.started.get(version, time.monotonic())
            self._save(version, release_entry(event.run, seconds))
        return ()

    def unavailable(self, version: str, reason: str) -> None:
        """A release npm installs but whose codex does not run: recorded as such."""
        self._save(version, unavailable_entry(reason))

    def _save(self, version: str, entry: dict[str, Any]) -> None:
        self.document["releases"][version] = entry
        save_history(self.out / HISTORY_FILE, self.document)
        write_grid(self.out, self.document)


async def _finish(upcoming: Future[Installation]) -> Exception | None:
    """Wait for a background install; how it failed, if it did.

    npm failures and unknown versions are left to the probe run, which tries again and
    reports every finding broken with the reason (a network fault is not a verdict).
    """
    try:
        await asyncio.wrap_future(upcoming)
    except INSTALL_ERRORS as error:
        return error
    return None
