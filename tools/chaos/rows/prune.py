"""`codex-probe cache prune --keep-installs 0` while two probe runs use the install it would remove:
the install stays (prune says it is in use), and both runs end with every finding judged.

The row's cache holds a hard-linked copy of the real cache's install (no 424 MB copy, and
the real cache is never pruned)."""

from __future__ import annotations

import os
import shutil

from tools.chaos import checks, processes
from tools.chaos.context import CODEX_PROBE, Context
from tools.chaos.probe_runs import PROBE_S, VERSION, start_probe
from tools.chaos.row import Observed, Row, observed

PRUNE_S = 60.0


def _uses(cache: str) -> bool:
    return any(
        "app-server" in one.command and cache in one.command
        for one in processes.running_descendants()
    )


def prune_during_runs(ctx: Context) -> Observed:
    source = ctx.cache / "codex" / VERSION
    ctx.cache = ctx.folder / "cache"
    shutil.copytree(source, ctx.cache / "codex" / VERSION, copy_function=os.link)
    runs = [start_probe(ctx, out=ctx.folder / name, name=name) for name in ("run-a", "run-b")]
    checks.wait_until(lambda: _uses(str(ctx.cache)), PROBE_S, "codex from the row's cache")
    prune = ctx.run(
        [*CODEX_PROBE, "cache", "prune", "--keep-installs", "0"], seconds=PRUNE_S, name="prune"
    )
    for run in runs:
        run.wait(PROBE_S)
    problems = checks.exit_code(prune, 0)
    if f"kept {VERSION}: in use by a running process" not in prune.stdout:
        problems.append(f"prune did not say {VERSION} is in use")
    for run in runs:
        problems += [f"{run.name}: {problem}" for problem in checks.exit_code(run, 0)]
        document = checks.verdict_file(ctx.folder / run.name) or {}
        if broken := checks.broken(document):
            problems.append(f"{run.name}: {len(broken)} broken finding(s)")
    if not (ctx.cache / "codex" / VERSION / "installed.json").is_file():
        problems.append("the install was removed")
    said = " / ".join(prune.stdout.strip().splitlines()) or "(nothing)"
    codes = ", ".join(str(run.process.returncode) for run in runs)
    shutil.rmtree(ctx.cache, ignore_errors=True)
    return observed(problems, f"prune: {said}; runs exit {codes}")


ROWS = [
    Row(
        "prune during two runs",
        f"prune says kept {VERSION}: in use; the install stays; both runs exit 0, none broken",
        prune_during_runs,
        deadline_s=2 * PROBE_S + 60.0,
    )
]
