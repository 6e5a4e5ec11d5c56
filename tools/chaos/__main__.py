"""`python -m tools.chaos [--only TEXT]... [--seed N] [--keep] [--list]`: run the campaign
and print its table; exit 1 if any row fails, 130 if interrupted.

The whole campaign is bounded: no row runs past BUDGET_S (its deadline is cut to what is
left), and a row that would start after it is a failed row ("not run").
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from codex_probe.harness.codex.cache import cache_root
from tools.chaos import table
from tools.chaos.campaign import ROWS, Result, become_subreaper, run_row
from tools.chaos.row import Observed

# The bound: the campaign takes at most 20 minutes on its 2-core machine.
BUDGET_S = 20 * 60.0


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.chaos", description=__doc__)
    parser.add_argument("--only", action="append", default=[], metavar="TEXT",
                        help="only the rows whose name contains TEXT (repeatable)")  # fmt: skip
    parser.add_argument("--seed", type=int, help="the seed of the random moments")
    parser.add_argument("--keep", action="store_true", help="keep the campaign's folder")
    parser.add_argument("--list", action="store_true", help="list the rows and exit")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse(argv)
    rows = [row for row in ROWS if not args.only or any(text in row.name for text in args.only)]
    if args.list:
        for row in rows:
            print(f"{row.name}: {row.expected}")
        return 0
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    become_subreaper()
    folder = Path(tempfile.mkdtemp(prefix="chaos-"))
    print(f"chaos: {len(rows)} rows, seed {seed}, folder {folder}", file=sys.stderr)
    results: list[Result] = []
    started = time.monotonic()
    interrupted = False
    try:
        for number, row in enumerate(rows, start=1):
            left = BUDGET_S - (time.monotonic() - started)
            if left <= 0:
                result = Result(row, Observed(False, f"not run: {BUDGET_S:.0f} s were up"), 0.0)
            else:
                deadline = min(row.deadline_s, left)
                result = run_row(row, folder / f"{number:02d}", cache_root(), rng, deadline)
            results.append(result)
            mark = "pass" if result.observed.passed else "FAIL"
            print(f"[{number}/{len(rows)}] {mark} {row.name} ({result.seconds:.1f} s)",
                  file=sys.stderr)  # fmt: skip
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    print(table.render([_cells(result) for result in results]))
    failed = sum(not result.observed.passed for result in results)
    print(
        f"\n{len(results) - failed} of {len(results)} rows pass, {failed} fail; "
        f"{time.monotonic() - started:.0f} s; seed {seed}"
        + (" (interrupted)" if interrupted else "")
    )
    if interrupted:
        return 130
    return 1 if failed else 0


def _cells(result: Result) -> tuple[str, str, str, str]:
    row = result.row
    name = f"{row.name} [{row.defect}]" if row.defect else row.name
    return (name, row.expected, result.observed.text, "pass" if result.observed.passed else "FAIL")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
