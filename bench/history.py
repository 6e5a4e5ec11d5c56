"""Wall time per release of a history run, against the target for the whole history.

Run: python bench/history.py [--from 0.140.0] [--count 8] [--jobs N] [--json]

For each of COUNT consecutive published releases: the npm install from a warm npm cache
(each release is installed once into a scratch cache first, then timed into an empty
one), and the probe as history runs it: the real scenarios, learning the fake's profile
(or taking the checked-in one), the fake's scenarios. The target is the whole history
from 0.120.0 to the latest release in 20 minutes on this machine; the bench projects
the measured mean over every release of that range and prints the ratio. History
overlaps the next install with the current probe, so its real wall is at most this.
Everything happens in a scratch codex-probe cache: the user's cache is not touched.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.codex import install  # noqa: E402
from harness.codex.cache import CACHE_ENV  # noqa: E402
from harness.codex.versions import SPEC_CODEX_VERSION  # noqa: E402
from probes.release import DEFAULT_JOBS, Selection, probe_release  # noqa: E402
from probes.releases.span import published_range  # noqa: E402

TARGET_S = 20 * 60.0


def one_release(version: str, jobs: int, scratch: Path) -> dict[str, Any]:
    started = time.monotonic()
    install(version)
    installed = time.monotonic() - started
    run = asyncio.run(
        probe_release(
            version,
            Selection.of(None, fidelity=True),
            jobs=jobs,
            learned_dir=scratch / "learned" / version,
        )
    )
    probed = time.monotonic() - started - installed
    verdicts = [finding.verdict.value for finding in run.findings.values()]
    return {
        "version": version,
        "install_s": round(installed, 2),
        "probe_s": round(probed, 2),
        "phases_s": run.timings,
        "profile": run.profile.source if run.profile else None,
        "total_s": round(installed + probed, 2),
        "broken": verdicts.count("broken"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="first", default="0.140.0")
    parser.add_argument("--count", type=int, default=8)
    parser.add_argument("--jobs", type=int, default=DEFAULT_JOBS)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    whole = published_range(SPEC_CODEX_VERSION, "latest")
    releases = published_range(args.first, "latest")[: args.count]
    scratch = Path(tempfile.mkdtemp(prefix="codex-probe-bench-history-"))
    try:
        os.environ[CACHE_ENV] = str(scratch / "warm")
        for version in releases:  # fills npm's own cache; these installs are thrown away
            install(version)
        os.environ[CACHE_ENV] = str(scratch / "timed")
        shutil.rmtree(scratch / "warm")
        rows = []
        for version in releases:
            rows.append(one_release(version, args.jobs, scratch))
            shutil.rmtree(scratch / "timed" / "codex" / version, ignore_errors=True)
            if not args.json:
                row = rows[-1]
                print(
                    f"{version:9s} install {row['install_s']:5.1f} s  probe {row['probe_s']:5.1f} s"
                    f"  ({row['profile']} profile; phases {row['phases_s']})  "
                    f"total {row['total_s']:5.1f} s",
                    flush=True,
                )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    per_release = statistics.mean(row["total_s"] for row in rows)
    projected = per_release * len(whole)
    report = {
        "machine": f"{platform.machine()} {os.cpu_count()} cpus, Python "
        f"{platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "releases": rows,
        "mean_install_s": round(statistics.mean(r["install_s"] for r in rows), 2),
        "mean_probe_s": round(statistics.mean(r["probe_s"] for r in rows), 2),
        "per_release_s": round(per_release, 2),
        "history_releases": len(whole),
        "projected_history_s": round(projected, 1),
        "target_s": TARGET_S,
        "projected_over_target": round(projected / TARGET_S, 3),
        "broken_findings": sum(r["broken"] for r in rows),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(
        f"mean per release {per_release:.1f} s (install {report['mean_install_s']} s, "
        f"probe {report['mean_probe_s']} s) on {report['machine']}"
    )
    print(
        f"whole history {SPEC_CODEX_VERSION}..{whole[-1]} ({len(whole)} releases): "
        f"projected {projected / 60:.1f} min; target {TARGET_S / 60:.0f} min; "
        f"ratio {report['projected_over_target']}"
    )


if __name__ == "__main__":
    main()
