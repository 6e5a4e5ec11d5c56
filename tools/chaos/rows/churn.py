"""Sibling churn under a `.git`: folders made and removed beside the working folders while
codex starts sealed (the seal rebuilds a parent that holds a `.git` from its entries).

Standalone: many sealed launches of `true` in a folder whose parent holds a `.git`, while
two threads make and remove siblings as fast as they can. Through codex-probe: two probe
runs with TMPDIR at the top of a git tree (every scenario's home is made and removed
beside the `.git`), with the same churn."""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from codex_probe.harness.codex.seal import prepare
from tools.chaos import checks
from tools.chaos.context import Context
from tools.chaos.probe_runs import PROBE_S, start_probe
from tools.chaos.row import Observed, Row, observed

LAUNCHES = 300
LAUNCH_S = 30.0
CHURNERS = 2


@contextmanager
def churning(folder: Path) -> Iterator[None]:
    """Threads that make and remove sibling folders in `folder` until the block ends."""
    stop = threading.Event()

    def churn(worker: int) -> None:
        made = 0
        while not stop.is_set():
            sibling = folder / f"sibling-{worker}-{made}"
            sibling.mkdir()
            (sibling / "file").write_text("churn\n")
            shutil.rmtree(sibling)
            made += 1

    threads = [threading.Thread(target=churn, args=(n,), daemon=True) for n in range(CHURNERS)]
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=10)


def git_tree(ctx: Context) -> Path:
    tree = ctx.folder / "tree"
    (tree / ".git").mkdir(parents=True)
    (tree / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return tree


def sealed_launches(ctx: Context) -> Observed:
    tree = git_tree(ctx)
    work = tree / "home" / "work"
    work.mkdir(parents=True)
    failures: Counter[str] = Counter()
    with churning(tree):
        for _ in range(LAUNCHES):
            argv, _ = prepare(["true"], str(work))
            done = subprocess.run(
                argv, cwd=work, capture_output=True, text=True, timeout=LAUNCH_S, check=False
            )
            if done.returncode != 0:
                failures[f"exit {done.returncode}: {done.stderr.strip()[:80]}"] += 1
    failed = sum(failures.values())
    seen = f"{failed} of {LAUNCHES} launches failed"
    if failures:
        seen += " (" + "; ".join(f"{n}x {why}" for why, n in failures.most_common(2)) + ")"
    return observed(["a launch failed"] if failed else [], seen)


def probes_under_churn(ctx: Context) -> Observed:
    tree = git_tree(ctx)
    problems: list[str] = []
    codes = []
    with churning(tree):
        for name in ("run-a", "run-b"):
            run = start_probe(ctx, out=ctx.folder / name, name=name, env=ctx.env(TMPDIR=str(tree)))
            run.wait(PROBE_S)
            codes.append(str(run.process.returncode))
            problems += [f"{name}: {problem}" for problem in checks.exit_code(run, 0)]
            if broken := checks.broken(checks.verdict_file(ctx.folder / name) or {}):
                problems.append(f"{name}: {len(broken)} broken finding(s)")
    if homes := sorted(p.name for p in tree.glob("codex-probe-*")):
        problems.append(f"{len(homes)} codex-probe-* folder(s) left")
    return observed(problems, f"2 runs under churn: exit {', '.join(codes)}")


ROWS = [
    Row(
        "sibling churn: sealed launches",
        f"0 of {LAUNCHES} sealed launches fail while siblings of the .git come and go",
        sealed_launches,
        # 300 launches took about 60 s at a load of 8-15 and over 300 s at 25-28 (a
        # campaign beside the test suite): the count is the test, not the time.
        deadline_s=LAUNCHES * 3.0,
    ),
    Row(
        "sibling churn: probe, TMPDIR in a git tree",
        "2 of 2 runs exit 0 with no broken finding",
        probes_under_churn,
        deadline_s=2 * PROBE_S + 60.0,
    ),
]
