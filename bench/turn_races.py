"""How often a real release loses the item/completed of a command a scripted model ran.

Run: python bench/turn_races.py [--codex 0.120.0] [--case command] [--runs 16] [--json]
Runs a case of tests/rig/turns.py (a thread whose model calls exec_command) on the real
codex-cli, two at a time so the machine is loaded as a test run loads it, and counts the
runs whose commandExecution item started but never completed, beside whether its output
streamed (item/commandExecution/outputDelta) and the wall time codex reported for it.
docs/observations/real-turns.md cites its counts. Exits 2 when codex-cli cannot be
installed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import describe  # noqa: E402
from codex_probe.harness.codex.install import InstallError, install  # noqa: E402
from tests.rig.turns import CASES, run_case  # noqa: E402

NO_PEER = 2


async def one(version: str, case: str) -> dict[str, Any]:
    run = await run_case("real", version, case)
    output = next(iter(run.call_outputs().values()), "")
    wall = output.split("\n")[1] if output.count("\n") > 1 else ""
    return {
        "started": len(run.items("started", "commandExecution")),
        "completed": len(run.items("completed", "commandExecution")),
        "streamed": bool(run.notifications("item/commandExecution/outputDelta")),
        "wall": wall.removeprefix("Wall time: ").removesuffix(" seconds"),
    }


async def measure(version: str, case: str, runs: int) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    for _ in range(-(-runs // 2)):
        results += await asyncio.gather(one(version, case), one(version, case))
    return results[:runs]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--codex", default="0.120.0")
    parser.add_argument("--case", default="command", choices=sorted(CASES))
    parser.add_argument("--runs", type=int, default=16)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    try:
        install(args.codex)
    except (InstallError, ValueError) as error:
        print(f"cannot install codex-cli {args.codex}: {error}", file=sys.stderr)
        return NO_PEER
    results = asyncio.run(measure(args.codex, args.case, args.runs))
    lost = [r for r in results if r["completed"] < r["started"]]
    summary = {
        "codex": args.codex,
        "case": args.case,
        "runs": len(results),
        "lost_completion": len(lost),
        "lost_with_streamed_output": sum(1 for r in lost if r["streamed"]),
        "lost_with_zero_wall_time": sum(1 for r in lost if r["wall"] == "0.0000"),
        "runs_with_zero_wall_time": sum(1 for r in results if r["wall"] == "0.0000"),
        "machine": describe(),
    }
    if args.json:
        print(json.dumps({**summary, "results": results}, indent=1))
    else:
        for result in results:
            print(result)
        print({k: v for k, v in summary.items() if k != "machine"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
