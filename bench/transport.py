"""Request round trips per second over stdio against a trivial echo peer.

Run: python bench/transport.py [--seconds 5] [--concurrency 1 8]
Prints the machine it ran on, then one line per concurrency level.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.jsonrpc.client import JsonRpcClient  # noqa: E402

PEER = ROOT / "tests" / "transport" / "peer.py"


async def measure(seconds: float, concurrency: int) -> tuple[int, float]:
    env = {"PATH": os.environ.get("PATH", os.defpath)}
    async with await JsonRpcClient.spawn([sys.executable, str(PEER)], env=env) as client:
        await client.request("echo", {}, timeout=10)  # warm up
        done = 0
        deadline = time.monotonic() + seconds

        async def worker() -> None:
            nonlocal done
            while time.monotonic() < deadline:
                await client.request("echo", {"n": done}, timeout=10)
                done += 1

        started = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return done, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8])
    args = parser.parse_args()
    print(
        f"machine: {platform.node()} {platform.machine()} {os.cpu_count()} cpus, "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}"
    )
    print("peer: tests/transport/peer.py (Python, echo), newline-delimited JSON over stdio")
    for concurrency in args.concurrency:
        count, elapsed = asyncio.run(measure(args.seconds, concurrency))
        print(
            f"concurrency {concurrency:3d}: {count:7d} round trips in {elapsed:5.2f}s "
            f"= {count / elapsed:9.0f} req/s, {elapsed / count * 1e6:7.1f} us each"
        )


if __name__ == "__main__":
    main()
