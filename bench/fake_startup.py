"""The fake's and the real codex-cli's start-up and turn latency, side by side.

Run: python bench/fake_startup.py [--codex 0.171.0] [--runs 5]
For each: spawn -> `initialize` answered, and `turn/start` -> `turn/completed` against the
same loopback provider (the wiretap). Prints the median and the spread of the runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fake_appserver.launcher import write_launcher  # noqa: E402
from harness.codex.appserver import open_app_server  # noqa: E402
from harness.codex.install import install  # noqa: E402
from harness.codex.versions import DEFAULT_CODEX_VERSION  # noqa: E402
from rig.homes import IsolatedHome  # noqa: E402
from rig.wiretap import Wiretap  # noqa: E402


async def one_run(binary: Path) -> tuple[float, float]:
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url) as home:
            spawned = time.monotonic()
            client, _ = await open_app_server(binary, env=home.env(), cwd=home.workdir)
            initialized = time.monotonic() - spawned
            async with client:
                thread = await client.request("thread/start", {"cwd": str(home.workdir)})
                started = time.monotonic()
                await client.request(
                    "turn/start",
                    {
                        "threadId": thread["thread"]["id"],
                        "input": [{"type": "text", "text": "hi", "text_elements": []}],
                    },
                )
                await client.wait_for_notification("turn/completed", timeout=60)
                turn = time.monotonic() - started
    return initialized, turn


def summary(values: list[float]) -> str:
    return (
        f"median {statistics.median(values) * 1000:7.1f} ms "
        f"(min {min(values) * 1000:6.1f}, max {max(values) * 1000:6.1f})"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--codex", default=DEFAULT_CODEX_VERSION)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    real = install(args.codex).binary
    fake = write_launcher(Path(tempfile.mkdtemp(prefix="fake-bench-")), profile=args.codex)
    print(
        f"machine: {platform.node()} {platform.machine()} {os.cpu_count()} cpus, "
        f"Python {platform.python_version()}; codex-cli {args.codex}; {args.runs} runs each"
    )
    for name, binary in (("real codex-cli", real), ("fake-codex", fake)):
        runs = [await one_run(binary) for _ in range(args.runs)]
        print(f"{name:15s} spawn->initialize {summary([r[0] for r in runs])}")
        print(f"{'':15s} turn/start->turn/completed {summary([r[1] for r in runs])}")


if __name__ == "__main__":
    asyncio.run(main())
