"""The fake's and the real codex-cli's start-up and turn latency, side by side.

Run: python bench/fake_startup.py [--codex 0.171.0] [--runs 15] [--json]
For each: spawn -> `initialize` answered, and `turn/start` -> `turn/completed` against the
same loopback provider (the wiretap), each run on a fresh isolated home. The runs
interleave (real, fake, real, fake...), so load on a shared machine falls on both alike.
Prints the median and the spread of each; `fake_over_real_start` is the median of the
per-pair ratios of the start-up times (--json prints them as one object). The fake
answers initialize before it imports most of itself (codex_probe/fake_appserver/first_request.py),
so spawn -> the first thread/start answered is printed too (`fake_over_real_ready`).
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
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import describe  # noqa: E402
from codex_probe.fake_appserver.launcher import write_launcher  # noqa: E402
from codex_probe.harness.codex.appserver import open_app_server  # noqa: E402
from codex_probe.harness.codex.install import install  # noqa: E402
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION  # noqa: E402
from codex_probe.harness.driver.params import text_input  # noqa: E402
from codex_probe.rig.homes import IsolatedHome  # noqa: E402
from codex_probe.rig.wiretap import Wiretap  # noqa: E402

NO_PEER = 2


@dataclass(frozen=True)
class Run:
    start: float  # spawn -> initialize answered
    ready: float  # spawn -> the first thread/start answered (what start-up left for later)
    turn: float  # turn/start -> turn/completed


async def one_run(binary: Path) -> Run:
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url) as home:
            spawned = time.perf_counter()
            client, _ = await open_app_server(binary, env=home.env(), cwd=home.workdir)
            initialized = time.perf_counter() - spawned
            async with client:
                thread = await client.request("thread/start", {"cwd": str(home.workdir)})
                ready = time.perf_counter() - spawned
                started = time.perf_counter()
                await client.request(
                    "turn/start",
                    {"threadId": thread["thread"]["id"], "input": text_input("hi")},
                )
                await client.wait_for_notification("turn/completed", timeout=60)
                turn = time.perf_counter() - started
    return Run(initialized, ready, turn)


def summary(values: list[float]) -> str:
    return (
        f"median {statistics.median(values) * 1000:7.1f} ms "
        f"(min {min(values) * 1000:6.1f}, max {max(values) * 1000:6.1f})"
    )


async def measure(real: Path, fake: Path, runs: int) -> dict[str, list[Run]]:
    await one_run(real)  # warm up: the first start of each reads its files from disk
    await one_run(fake)
    figures: dict[str, list[Run]] = {"real": [], "fake": []}
    for _ in range(runs):
        figures["real"].append(await one_run(real))
        figures["fake"].append(await one_run(fake))
    return figures


def ratio(figures: dict[str, list[Run]], field: str) -> float:
    """The median over the interleaved pairs of fake's figure over real's."""
    pairs = zip(figures["fake"], figures["real"], strict=True)
    return float(statistics.median(getattr(f, field) / getattr(r, field) for f, r in pairs))


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
    fields = ("start", "ready", "turn")
    ratios = {field: ratio(figures, field) for field in fields}
    if args.json:
        print(
            json.dumps(
                {
                    "fake_over_real_start": round(ratios["start"], 3),
                    "fake_over_real_ready": round(ratios["ready"], 3),
                    "fake_over_real_turn": round(ratios["turn"], 3),
                    **{
                        f"{name}_{field}_ms": round(
                            statistics.median(getattr(run, field) for run in runs) * 1000, 1
                        )
                        for name, runs in figures.items()
                        for field in fields
                    },
                    "codex": args.codex,
                    "runs": args.runs,
                    "machine": describe(),
                }
            )
        )
        return 0
    print(f"machine: {describe()}; codex-cli {args.codex}; {args.runs} interleaved runs each")
    labels = {
        "start": "spawn->initialize",
        "ready": "spawn->thread/start answered",
        "turn": "turn/start->turn/completed",
    }
    for name, label in (("real", "real codex-cli"), ("fake", "fake-codex")):
        for index, field in enumerate(fields):
            values = [getattr(run, field) for run in figures[name]]
            print(f"{label if index == 0 else '':15s} {labels[field]:29s} {summary(values)}")
    for field in fields:
        print(f"{'fake / real':15s} {labels[field]:29s} {ratios[field]:.2f}x (median of pairs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
