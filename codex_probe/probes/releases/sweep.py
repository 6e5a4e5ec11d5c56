"""Probe every release of a range, one after another, into a history folder.

While a release is probed the next one installs in the background (npm is I/O, the probes
are CPU), and installs this run made are trimmed to a budget. Each release's run feeds
the command's writers of that release (codex_probe/cli/commands/history.py lists them: its
bundles, verdict.json and surface.json, as a probe run writes them, and its record in
history.json with the grid, `HistoryRecord`), which write as soon as it ends, so an
interrupted sweep keeps everything it finished.
"""

from __future__ import annotations

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
from codex_probe.probes.runner.release_run import run_release
from codex_probe.probes.runner.selection import Selection

GRID_SVG, GRID_HTML = "history.svg", "history.html"
INSTALL_ERRORS = (UnknownVersionError, NpmError, InstallError)


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
) -> None:
    """Probe each release of `releases` into `document` (saved under `out` as it goes):
    each release's run feeds `writers_for(version, folder)`, the command's writers of the
    release's folder (`out`/releases/VERSION), and then its record in history.json."""
    record = HistoryRecord(out, document)
    budget = InstallBudget(keep_installs)
    selection = Selection.of(None, fidelity=True)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="prefetch") as prefetcher:
        upcoming: Future[Installation] | None = (
            prefetcher.submit(install, releases[0]) if releases else None
        )
        for position, version in enumerate(releases):
            following = releases[position + 1] if position + 1 < len(releases) else None
            started = record.begin()
            failure = _finish(upcoming)
            upcoming = prefetcher.submit(install, following) if following else None
            if isinstance(failure, NoPlatformBinaryError):
                # The registry has no binary of it for this platform (0.142.1 lacks its
                # platform package): nobody here can use this release, for good. Any other
                # failed install is this machine's (a full disk, the network): the probe run
                # below tries again and its findings are broken, so the next run retries it.
                record.unavailable(version, str(failure))
                say(f"[{position + 1}/{len(releases)}] {version}: not installable: {failure}")
                continue
            if failure is None:
                budget.use(version, protect={following} if following else ())
                for kept, why in budget.kept.items():
                    say(f"  kept {kept} over the install budget: {why}")
            folder = inside(out, "releases", version)
            shutil.rmtree(folder / REPRO_FOLDER, ignore_errors=True)  # an earlier run's
            writers = Writers([*writers_for(version, folder), record])
            learning = learning_into(folder / "learned")
            plan = RunPlan(version, selection, jobs=jobs, learning=learning)
            writers.start()
            run = run_interruptible(functools.partial(run_release, plan, writers))
            writers.finish(complete=True)
            counts = {v: 0 for v in Verdict}
            for finding in run.findings.values():
                counts[finding.verdict] += 1
            say(
                f"[{position + 1}/{len(releases)}] {version}: "
                + ", ".join(f"{n} {v.value}" for v, n in counts.items() if n)
                + f" ({run.profile.source if run.profile else 'no'} fake profile) "
                f"in {time.monotonic() - started:.1f} s"
            )


class HistoryRecord(Writer):
    """history.json's record of each release probed (and the grid drawn from it), saved
    as soon as the release's run ends, so an interrupted sweep keeps what it finished."""

    def __init__(self, out: Path, document: dict[str, Any]) -> None:
        self.out, self.document = out, document
        self.started = time.monotonic()

    def begin(self) -> float:
        """A release's turn begins (its install awaited, then its run): its seconds count
        from now."""
        self.started = time.monotonic()
        return self.started

    def handle(self, event: Event) -> Sequence[Event]:
        if isinstance(event, ReleaseProbed):
            seconds = time.monotonic() - self.started
            self._save(event.run.version, release_entry(event.run, seconds))
        return ()

    def unavailable(self, version: str, reason: str) -> None:
        """A release npm installs but whose codex does not run: recorded as such."""
        self._save(version, unavailable_entry(reason))

    def _save(self, version: str, entry: dict[str, Any]) -> None:
        self.document["releases"][version] = entry
        save_history(self.out / HISTORY_FILE, self.document)
        write_grid(self.out, self.document)


def _finish(upcoming: Future[Installation] | None) -> Exception | None:
    """Wait for a background install; how it failed, if it did.

    npm failures and unknown versions are left to the probe run, which tries again and
    reports every finding broken with the reason (a network fault is not a verdict).
    """
    if upcoming is None:
        return None
    try:
        upcoming.result()
    except INSTALL_ERRORS as error:
        return error
    return None
