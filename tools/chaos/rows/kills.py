"""kill -9 of `codex-probe probe` while its app-servers run, and of `codex-probe history`
while its npm installs a release: nothing they started may run on for more than a few
seconds, and no codex-probe home may be left in TMPDIR."""

from __future__ import annotations

import shutil

from tools.chaos import checks, processes
from tools.chaos.context import CODEX_PROBE, Context
from tools.chaos.probe_runs import PROBE_S, start_probe
from tools.chaos.row import Observed, Row, observed

MID_RUN_S = (0.2, 3.0)
# A release the cache of the row does not have, with an npm cache of the row's own: history
# must download it (140 MB, about 6 s here), so an npm that outlives its codex-probe would
# still be running after GONE_WITHIN_S.
HISTORY_RELEASE = "0.80.0"
NPM_STARTS_WITHIN_S = 180.0


def _npm() -> list[processes.Seen]:
    """npm itself (its process title is `npm install ...`), not a starter naming it."""
    return [one for one in processes.running_descendants() if one.command.startswith("npm ")]


def _npm_installing() -> bool:
    return any(one.command.startswith("npm install") for one in _npm())


def kill_probe(ctx: Context) -> Observed:
    run = start_probe(ctx, out=ctx.folder / "out")
    checks.wait_until(checks.app_servers_running, PROBE_S, "an app-server start")
    delay = ctx.rng.uniform(*MID_RUN_S)
    try:
        run.wait(delay)
        return Observed(False, f"the run ended by itself before the kill ({delay:.1f}s)")
    except TimeoutError:
        pass
    # Killed while codex runs: that is what must not be left behind.
    checks.wait_until(checks.app_servers_running, PROBE_S, "an app-server running")
    below = len(processes.running_descendants()) - 1
    homes = len(ctx.homes_left())
    run.kill()
    run.wait(10.0)
    problems = checks.left_nothing(ctx)
    seen = f"kill -9 at {run.elapsed():.1f}s with {below} processes below it, {homes} homes"
    return observed(problems, seen)


def kill_history(ctx: Context) -> Observed:
    ctx.cache = ctx.folder / "cache"  # empty: the release must be installed
    out = ctx.folder / "history"
    argv = [*CODEX_PROBE, "history", "--from", HISTORY_RELEASE, "--to", HISTORY_RELEASE]
    npm_cache = ctx.env(NPM_CONFIG_CACHE=str(ctx.folder / "npm-cache"))
    run = ctx.start([*argv, "--out", str(out)], name="history", env=npm_cache)
    checks.wait_until(_npm_installing, NPM_STARTS_WITHIN_S, "npm install")
    npm = _npm()
    run.kill()
    run.wait(10.0)
    problems = checks.left_nothing(ctx)
    seen = f"kill -9 at {run.elapsed():.1f}s while {processes.describe(npm, 1)} ran"
    shutil.rmtree(ctx.cache, ignore_errors=True)  # the half-made install of the row
    return observed(problems, seen)


ROWS = [
    Row(
        "kill -9 of probe",
        "nothing left running within 5 s; no codex-probe-* homes left in TMPDIR",
        kill_probe,
        deadline_s=PROBE_S + 60.0,
    ),
    Row(
        "kill -9 of history (npm install)",
        "npm and everything else gone within 5 s; no codex-probe-* homes left in TMPDIR",
        kill_history,
        deadline_s=NPM_STARTS_WITHIN_S + 60.0,
    ),
]
