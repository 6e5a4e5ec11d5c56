"""The fake's and the real codex-cli's start-up and turn latency, side by side.

Run: python bench/fake_startup.py [--codex 0.171.0] [--runs 15] [--json]
For each: spawn -> `initialize` answered, and `turn/start` -> `turn/completed` against the
same loopback provider (the wiretap), each run on a fresh isolated home. The runs
interleave (real, fake, real, fake...), so load on a shared machine falls on both alike.
Prints the median and the spread of each; `fake_over_real_start` is the median of the
per-pair ratios of the start-up times (--json prints them as one object).
Exits 2 when codex-cli cannot be installed: no peer, no ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import describe  # noqa: E402
from fake_appserver.launcher import write_launcher  # noqa: E402
from harness.codex.appserver import open_app_server  # noqa: E402
from harness.codex.install import install  # noqa: E402
from harness.codex.versions import DEFAULT_CODEX_VERSION  # noqa: E402
from harness.driver.params import text_input  # noqa: E402
from rig.homes import IsolatedHome  # noqa: E402
from rig.wiretap import Wiretap  # noqa: E402

NO_PEER = 2


async def one_run(binary: Path) -> tuple[float, float]:
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url) as home:
            spawned = time.perf_counter()
            client, _ = await open_app_server(binary, env=home.env(), cwd=home.workdir)
            initialized = time.perf_counter() - spawned
            async with client:
                thread = await client.request("thread/start", {"cwd": str(home.workdir)})
                started = time.perf_counter()
                await client.request(
                    "turn/start",
                    {"threadId": thread["thread"]["id"], "input": text_input("hi")},
                )
                await client.wait_for_notification("turn/completed", timeout=60)
                turn = time.perf_counter() - started
    return initialized, turn


def summary(values: list[float]) -> str:
    return (
        f"median {statistics.median(values) * 1000:7.1f} ms "
        f"(min {min(values) * 1000:6.1f}, max {max(values) * 1000:6.1f})"
    )


async def measure(real: Path, fake: Path, runs: int) -> dict[str, list[tuple[float, float]]]:
    await one_run(real)  # warm up: the first start of each reads its files from disk
    await one_run(fake)
    figures: dict[str, list[tuple[float, float]]] = {"real": [], "fake": []}
    for _ in range(runs):
        figures["real"].append(await one_run(real))
        figures["fake"].append(await one_run(fake))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--codex", default=DEFAULT_CODEX_VERSION)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    try:
        real = install(args.codex).binary
    except Exception as error:  # any failure to install leaves the bench without its peer
        print(
            f"bench/fake_startup.py: codex-cli {args.codex} unavailable: {error}", file=sys.stderr
        )
        return NO_PEER
    fake = write_launcher(Path(tempfile.mkdtemp(prefix="fake-bench-")), profile=args.codex)
    figures = asyncio.run(measure(real, fake, args.runs))
    starts = {name: [run[0] for run in runs] for name, runs in figures.items()}
    turns = {name: [run[1] for run in runs] for name, runs in figures.items()}
    ratio = statistics.median(f / r for f, r in zip(starts["fake"], starts["real"], strict=True))
    turn_ratio = statistics.median(f / r for f, r in zip(turns["fake"], turns["real"], strict=True))
    if args.json:
        print(
            json.dumps(
                {
                    "fake_over_real_start": round(ratio, 3),
                    "fake_over_real_turn": round(turn_ratio, 3),
                    "real_start_ms": round(statistics.median(starts["real"]) * 1000, 1),
                    "fake_start_ms": round(statistics.median(starts["fake"]) * 1000, 1),
                    "codex": args.codex,
                    "runs": args.runs,
                    "machine": describe(),
                }
            )
        )
        return 0
    print(f"machine: {describe()}; codex-cli {args.codex}; {args.runs} interleaved runs each")
    for name, label in (("real", "real codex-cli"), ("fake", "fake-codex")):
        print(f"{label:15s} spawn->initialize {summary(starts[name])}")
        print(f"{'':15s} turn/start->turn/completed {summary(turns[name])}")
    print(f"fake / real     spawn->initialize {ratio:.2f}x (median of per-pair ratios)")
    print(f"fake / real     turn/start->turn/completed {turn_ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
