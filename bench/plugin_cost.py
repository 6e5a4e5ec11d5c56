"""What installing codex-probe costs every pytest run of the environment it is installed in.

Run: python bench/plugin_cost.py [--runs 7] [--json]
Builds the wheel, makes three venvs (pytest alone; pytest beside `codex-probe`, the base
install; `codex-probe[pytest]`, the extra with the conformance suites' plugins) and times
`pytest --co -q` in an empty project folder in each, interleaved (alone, base, extra, alone,
...) so a shared machine's load falls on all three alike, after one warm-up run each. Prints
the median of each and `base_over_alone`, the median of the per-round ratios (the target:
at most 1.10). Exits 2 when a venv cannot be made (no index to install from): no ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import describe  # noqa: E402

NO_PEER = 2
KINDS = ("alone", "base", "extra")


def build_wheel(folder: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(folder), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = folder.glob("codex_probe-*.whl")
    return wheel


def make_venv(folder: Path, *requirements: str) -> Path:
    venv.create(folder, with_pip=True)
    pip = [str(folder / "bin" / "pip"), "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, *requirements], check=True, capture_output=True)
    return folder / "bin" / "pytest"


def collect_seconds(pytest: Path, project: Path) -> float:
    """`pytest --co -q` in the empty project: its wall time (exit 5: no tests, as expected)."""
    started = time.perf_counter()
    done = subprocess.run(
        [str(pytest), "--co", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    took = time.perf_counter() - started
    if done.returncode != 5:
        raise RuntimeError(f"{pytest} --co -q: exit {done.returncode}: {done.stdout}{done.stderr}")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="plugin-cost-") as scratch:
        where = Path(scratch)
        try:
            wheel = build_wheel(where / "dist")
            pytests = {
                "alone": make_venv(where / "alone", "pytest"),
                "base": make_venv(where / "base", "pytest", str(wheel)),
                "extra": make_venv(where / "extra", f"{wheel}[pytest]"),
            }
        except subprocess.CalledProcessError as error:
            print(f"bench/plugin_cost.py: cannot make the venvs: {error}", file=sys.stderr)
            return NO_PEER
        project = where / "project"
        project.mkdir()
        for pytest in pytests.values():
            collect_seconds(pytest, project)  # warm up: the first run reads its files from disk
        times: dict[str, list[float]] = {kind: [] for kind in KINDS}
        for _ in range(args.runs):
            for kind in KINDS:
                times[kind].append(collect_seconds(pytests[kind], project))
    ratios = {
        kind: statistics.median(t / a for t, a in zip(times[kind], times["alone"], strict=True))
        for kind in ("base", "extra")
    }
    medians = {kind: statistics.median(values) for kind, values in times.items()}
    if args.json:
        print(
            json.dumps(
                {
                    **{f"{kind}_median_s": round(medians[kind], 3) for kind in KINDS},
                    "base_over_alone": round(ratios["base"], 3),
                    "extra_over_alone": round(ratios["extra"], 3),
                    "runs": args.runs,
                    "machine": describe(),
                }
            )
        )
        return 0
    print(f"machine: {describe()}; {args.runs} interleaved runs of `pytest --co -q` each")
    labels = {
        "alone": "pytest alone",
        "base": "pytest + codex-probe",
        "extra": "codex-probe[pytest]",
    }
    for kind in KINDS:
        values = times[kind]
        print(
            f"{labels[kind]:22s} median {medians[kind]:6.3f} s "
            f"(min {min(values):.3f}, max {max(values):.3f})"
        )
    print(f"{'base / alone':22s} {ratios['base']:.2f}x (median of rounds; target <= 1.10)")
    print(f"{'extra / alone':22s} {ratios['extra']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
