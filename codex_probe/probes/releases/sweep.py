"""Probe every release of a range, one after another, into a history folder.

While a release is probed the next one installs in the background (npm is I/O, the probes
are CPU), and installs this run made are trimmed to a budget. After each release the
history file, that release's verdict.json (with a reproduction bundle of each changed or
broken finding of the real codex-cli beside it, as a probe run writes them), its
surface.json and the grid are written, so an interrupted sweep keeps everything it
finished.
"""

from __future__ import annotations

import functools
import shutil
import time
from collections.abc import Callable
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
from codex_probe.harness.files import inside, write_json, write_text_atomically
from codex_probe.harness.interrupts import run_interruptible
from codex_probe.probes.domain.findings import Verdict
from codex_probe.probes.domain.surface.file import write_surfaces
from codex_probe.probes.domain.verdict_file import VerdictReport
from codex_probe.probes.releases.budget import InstallBudget
from codex_probe.probes.releases.grid import render_html, render_svg
from codex_probe.probes.releases.history import (
    HISTORY_FILE,
    is_current,
    release_entry,
    save_history,
    surface_path,
    unavailable_entry,
)
from codex_probe.probes.releases.repro.bundle import REPRO_FOLDER, bundle_in_report
from codex_probe.probes.runner.events import Event, FindingJudged, Listener
from codex_probe.probes.runner.release_run import probe_release
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


def sweep(
    releases: list[str],
    out: Path,
    document: dict[str, Any],
    *,
    jobs: int,
    keep_installs: int,
    say: Callable[[str], None],
) -> None:
    """Probe each release of `releases` into `document` (saved under `out` as it goes)."""
    budget = InstallBudget(keep_installs)
    selection = Selection.of(None, fidelity=True)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="prefetch") as prefetcher:
        upcoming: Future[Installation] | None = (
            prefetcher.submit(install, releases[0]) if releases else None
        )
        for position, version in enumerate(releases):
            following = releases[position + 1] if position + 1 < len(releases) else None
            started = time.monotonic()
            failure = _finish(upcoming)
            upcoming = prefetcher.submit(install, following) if following else None
            if isinstance(failure, NoPlatformBinaryError):
                # The registry has no binary of it for this platform (0.142.1 lacks its
                # platform package): nobody here can use this release, for good. Any other
                # failed install is this machine's (a full disk, the network): the probe run
                # below tries again and its findings are broken, so the next run retries it.
                document["releases"][version] = unavailable_entry(str(failure))
                save_history(out / HISTORY_FILE, document)
                write_grid(out, document)
                say(f"[{position + 1}/{len(releases)}] {version}: not installable: {failure}")
                continue
            if failure is None:
                budget.use(version, protect={following} if following else ())
                for kept, why in budget.kept.items():
                    say(f"  kept {kept} over the install budget: {why}")
            folder = inside(out, "releases", version)
            shutil.rmtree(folder / REPRO_FOLDER, ignore_errors=True)  # an earlier run's
            probe = functools.partial(
                probe_release,
                version,
                selection,
                jobs=jobs,
                learned_dir=folder / "learned",
                on_event=bundles_into(folder),
            )
            run = run_interruptible(probe)
            seconds = time.monotonic() - started
            document["releases"][version] = release_entry(run, seconds)
            verdict = VerdictReport({version: dict(run.findings)})
            verdict.facts["fake_profiles"] = {version: run.profile.to_json()} if run.profile else {}
            write_json(folder / "verdict.json", verdict.to_json())
            if run.surface is not None:
                write_surfaces(out / surface_path(version), {version: run.surface})
            save_history(out / HISTORY_FILE, document)
            write_grid(out, document)
            counts = {v: 0 for v in Verdict}
            for finding in run.findings.values():
                counts[finding.verdict] += 1
            say(
                f"[{position + 1}/{len(releases)}] {version}: "
                + ", ".join(f"{n} {v.value}" for v, n in counts.items() if n)
                + f" ({run.profile.source if run.profile else 'no'} fake profile) "
                f"in {seconds:.1f} s"
            )


def bundles_into(folder: Path) -> Listener:
    """A listener that writes the bundle of each changed or broken finding of the real
    codex-cli under `folder`/repro/, and names it in the finding (verdict.json's `repro`)."""

    def on_event(event: Event) -> None:
        if not isinstance(event, FindingJudged) or event.outcome is None:
            return
        finding = event.finding
        if finding.verdict is not Verdict.HOLDS and not finding.is_fidelity:
            finding.repro = bundle_in_report(folder, finding, event.outcome)

    return on_event


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
