"""Wall time per release of `codex-probe history`, against the target for the whole history.

Run: python bench/history.py [--from 0.140.0] [--count 8] [--jobs N] [--at-once N] [--json]
     [--keep DIR] [--no-floor]

It runs the real command, `codex-probe history`, over COUNT consecutive published
releases, in a scratch cache, after one untimed install of each into another scratch
cache, whose npm downloads the timed cache then starts with (so each timed install is what
a nightly runner with a warm npm cache pays; until 2026-12-05 they were thrown away with
that cache, and every timed install downloaded its release again). Per release it prints
what history.json records: the seconds from its start (once the release before it has run
its scenarios on codex, so they overlap that one's end; the next release installs in the
background meanwhile) to its last finding, and the phases of the probe (real scenarios,
learning the fake's profile, the fake's scenarios); the rate is the whole run's wall time
over the releases, not their sum. It samples the size of the cache the whole time and
prints its peak (npm's downloads included), and the CPU seconds of the history's processes
(against what the cores could give a release within the target). The target is the whole
history from 0.120.0 to the latest release in 20 minutes on this machine: the bench
projects the measured wall per release over that range and prints the ratio (a run over
the whole range reports its own wall instead). The user's
own cache is not touched.

The machine's speed changes from day to day (bench/probes.py's floor of one release took 25.3
s on 2026-12-06 and 36.3 s on another machine that evening: the same code's whole history took
1,212.6 s and 1,592.5 s), so the wall alone cannot say whether a change of the code made a
history faster. Before and after the timed run the bench measures that floor (`bench/probes.py
--floor-only`, of its default release, in a cache of its own; `--no-floor` skips it)
and prints the history's wall in floors, which two runs on different days can compare. The
target stays the wall: 20 minutes.
"""

from __future__ import annotations

import argparse
import calendar
import itertools
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codex_probe.harness.codex.cache import CACHE_ENV  # noqa: E402
from codex_probe.harness.codex.install import InstallError, install  # noqa: E402
from codex_probe.harness.codex.installs import tree_size  # noqa: E402
from codex_probe.harness.codex.npm_cache import chosen_by_caller, npm_cache_dir  # noqa: E402
from codex_probe.harness.codex.versions import (  # noqa: E402
    DEFAULT_CODEX_VERSION,
    SPEC_CODEX_VERSION,
)
from codex_probe.probes.releases.span import published_range  # noqa: E402
from codex_probe.probes.releases.sweep import DEFAULT_AT_ONCE  # noqa: E402
from codex_probe.probes.runner.jobs import DEFAULT_JOBS  # noqa: E402

TARGET_S = 20 * 60.0
GB = 1024**3


class PeakSize:
    """The largest size `folder` reached, sampled every `every` seconds in a thread; a
    subfolder that does not change (`fixed`: npm's downloads, some 10 GB) is measured once,
    not walked every second beside the run."""

    def __init__(self, folder: Path, fixed: Path, every: float = 1.0) -> None:
        self.folder, self.fixed, self.every, self.peak = folder, fixed, every, 0
        self.fixed_size = tree_size(fixed) if fixed.is_dir() else 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _size(self) -> int:
        """The fixed part's size and the rest's now (files at the top level are small)."""
        parts = [part for part in self.folder.iterdir() if part != self.fixed]
        return self.fixed_size + sum(tree_size(part) for part in parts if part.is_dir())

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._size())
            self._stop.wait(self.every)

    def __enter__(self) -> PeakSize:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._size())


def _children_cpu() -> float:
    """CPU seconds (user and system) of this process's children that were waited for: the
    history command and every process it waited for in turn (codex, the fakes, npm)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="first", default="0.140.0")
    parser.add_argument("--count", type=int, default=8)
    parser.add_argument("--jobs", type=int, default=DEFAULT_JOBS)
    parser.add_argument("--at-once", type=int, default=DEFAULT_AT_ONCE, help="releases at once")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--keep", type=Path, metavar="DIR", help="copy the history folder (grid, verdicts) here"
    )
    parser.add_argument(
        "--no-floor", action="store_true", help="do not measure the machine's floor around it"
    )
    args = parser.parse_args()
    whole = published_range(SPEC_CODEX_VERSION, "latest")
    releases = published_range(args.first, "latest")[: args.count]
    scratch = Path(tempfile.mkdtemp(prefix="codex-probe-bench-history-"))
    try:
        os.environ[CACHE_ENV] = str(scratch / "warm")
        for version in releases:  # fills npm's own cache; each install is thrown away at once
            try:
                shutil.rmtree(install(version).root)
            except InstallError as error:  # e.g. 0.142.1: its platform package is missing
                print(f"{version}: not installable ({error})"[:200], file=sys.stderr)
        timed_cache, out = scratch / "timed", scratch / "history"
        timed_cache.mkdir()
        # npm's downloads live in codex-probe's cache (npm_cache.py): the timed cache starts
        # with them and no install, as a nightly runner's would (unless the caller chose an
        # npm cache, which both share).
        floors: list[float | str] = []
        if not args.no_floor:
            floors.append(_floor(scratch / "floor", npm_cache_dir(scratch / "warm")))
        if (downloads := npm_cache_dir(scratch / "warm")).is_dir():
            downloads.rename(npm_cache_dir(timed_cache))
        shutil.rmtree(scratch / "warm")
        command = [
            sys.executable, "-m", "codex_probe.cli", "history", "--from", releases[0],
            "--to", releases[-1], "--out", str(out), "--jobs", str(args.jobs),
            "--at-once", str(args.at_once),
        ]  # fmt: skip
        env = {**os.environ, CACHE_ENV: str(timed_cache)}
        with PeakSize(timed_cache, npm_cache_dir(timed_cache)) as size:
            started, cpu_before = time.monotonic(), _children_cpu()
            done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
            wall, cpu = time.monotonic() - started, _children_cpu() - cpu_before
        if done.returncode not in (0, 3):
            sys.exit(f"bench/history.py: history exited {done.returncode}: {done.stderr[-2000:]}")
        if not args.no_floor:
            floors.append(_floor(scratch / "floor", npm_cache_dir(timed_cache)))
        history = json.loads((out / "history.json").read_text())
        if args.keep is not None:
            shutil.copytree(out, args.keep, dirs_exist_ok=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    rows = [
        {
            "version": version,
            "seconds": entry.get("seconds", 0.0),
            "ended": entry.get("probed_at", ""),
            "phases_s": entry.get("phases", {}),
            "profile": (entry.get("fake_profile") or {}).get("source"),
            "unavailable": bool(entry.get("unavailable")),
            "broken": sum(f["verdict"] == "broken" for f in entry["findings"].values()),
        }
        for version, entry in history["releases"].items()
    ]
    # A release that cannot run costs a failed install and gives no verdict: count only the
    # probed ones in the rate (and the whole range at that rate), so nothing is flattered.
    probed = [row for row in rows if not row["unavailable"]]
    per_release = wall / max(1, len(probed))
    cpu_per_release = cpu / max(1, len(probed))
    # A run over the whole range is the whole history: its wall time, not a projection (which
    # would charge each release that cannot be installed a probed release's time).
    measured_whole = releases == whole
    projected = wall if measured_whole else per_release * len(whole)
    report: dict[str, Any] = {
        "machine": f"{platform.machine()} {os.cpu_count()} cpus, Python "
        f"{platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "releases": rows,
        "wall_s": round(wall, 1),
        "not_installable": [row["version"] for row in rows if row["unavailable"]],
        "at_once": args.at_once,
        "per_release_s": round(per_release, 2),
        "cpu_s": round(cpu, 1),
        "cpu_per_release_s": round(cpu_per_release, 2),
        # What the cores could give a release within the target, all of them busy all the time.
        "cpu_budget_per_release_s": round(TARGET_S * (os.cpu_count() or 1) / len(whole), 2),
        "busy_cores": round(cpu / wall, 2),
        # A release's own seconds overlap the one before it; the pace is the time between
        # two releases' ends.
        "median_release_s": statistics.median(r["seconds"] for r in probed or rows),
        "median_gap_s": _median_gap([row["ended"] for row in probed]),
        "peak_cache_gb": round(size.peak / GB, 2),
        # Of that, npm's downloads the cache started with.
        "npm_cache_gb": round(size.fixed_size / GB, 2),
        "history_releases": len(whole),
        "whole_range_measured": measured_whole,
        "projected_history_s": round(projected, 1),
        "target_s": TARGET_S,
        "projected_over_target": round(projected / TARGET_S, 3),
        "broken_findings": sum(r["broken"] for r in rows),
        # The machine's speed around the run (see the module): bench/probes.py's floor of its
        # default release, before and after (a string: why it could not be measured).
        "floor_codex": None if args.no_floor else DEFAULT_CODEX_VERSION,
        "floor_s": floors,
        "wall_over_floor": _in_floors(wall, floors),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for row in rows:
        print(
            f"{row['version']:9s} {row['seconds']:5.1f} s  ({row['profile']} profile; "
            f"phases {row['phases_s']})"
        )
    if report["not_installable"]:
        print(f"not installable (left out of the rate): {', '.join(report['not_installable'])}")
    print(
        f"{len(rows)} releases in {wall:.1f} s: {per_release:.1f} s per probed release "
        f"(one ends every {report['median_gap_s']} s, median; each lasts "
        f"{report['median_release_s']} s, median, overlapping the one before it); "
        f"peak cache {report['peak_cache_gb']} GB ({report['npm_cache_gb']} GB of it npm's "
        "downloads, there from the start); "
        f"on {report['machine']}"
    )
    print(
        f"CPU {cpu:.0f} s: {cpu_per_release:.1f} s per probed release (all cores busy the whole "
        f"time within the target: {report['cpu_budget_per_release_s']} s); "
        f"{report['busy_cores']} cores busy on average"
    )
    print(
        f"whole history {SPEC_CODEX_VERSION}..{whole[-1]} ({len(whole)} releases): "
        f"{'measured' if measured_whole else 'projected'} "
        f"{projected / 60:.1f} min; target {TARGET_S / 60:.0f} min; "
        f"ratio {report['projected_over_target']}"
    )
    if report["wall_over_floor"] is not None:
        print(
            f"machine: bench/probes.py's floor of {DEFAULT_CODEX_VERSION} {floors[0]} s before, "
            f"{floors[1]} s after: the run took {report['wall_over_floor']} floors"
        )
    elif floors:
        print("machine: the floor was not measured (why: above, and in --json's floor_s)")


def _floor(cache: Path, npm_cache: Path) -> float | str:
    """bench/probes.py's floor of its default release in seconds, installed into `cache`
    (from `npm_cache`, unless the caller chose npm's cache); else why it was not measured."""
    env = {**os.environ, CACHE_ENV: str(cache)}
    if chosen_by_caller() is None:
        env["NPM_CONFIG_CACHE"] = str(npm_cache)
    command = [sys.executable, str(ROOT / "bench" / "probes.py"), "--runs", "1", "--floor-only"]
    command.append("--json")
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    try:
        return round(float(json.loads(done.stdout.splitlines()[-1])["floor_s"]), 1)
    except (IndexError, ValueError, KeyError, TypeError):
        said = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        print(f"bench/history.py: the floor was not measured: {said}", file=sys.stderr)
        return f"not measured: {said}"[:300]


def _in_floors(wall: float, floors: list[float | str]) -> float | None:
    """The wall in floors (their mean), if every floor was measured."""
    measured = [f for f in floors if isinstance(f, float)]
    if not measured or len(measured) != len(floors):
        return None
    return round(wall / statistics.mean(measured), 1)


def _median_gap(ended: list[str]) -> float | None:
    """The median time between two releases' ends (history.json's `probed_at`, to the
    second); None with fewer than two."""
    times = sorted(calendar.timegm(time.strptime(at, "%Y-%m-%dT%H:%M:%SZ")) for at in ended if at)
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    return statistics.median(gaps) if gaps else None


if __name__ == "__main__":
    main()
