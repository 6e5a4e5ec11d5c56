"""Ctrl-C, SIGTERM and SIGHUP at random moments of a probe run of the real codex-cli.

Ctrl-C goes to the run's process group, as a terminal sends it. Expected, as issue 25 says:
Ctrl-C ends the run with 130 and one line (during imports too; a second Ctrl-C during the
cleanup ends the children at once, still 130 and one line); SIGTERM and SIGHUP are treated
as Ctrl-C is, with 143 and 129; a run cut short leaves an incomplete verdict.json, and
nothing running, and no codex-probe home in TMPDIR.
"""

from __future__ import annotations

import signal

from tools.chaos import checks
from tools.chaos.context import Context
from tools.chaos.probe_runs import PROBE_S, start_probe
from tools.chaos.row import Observed, Row, observed

# How long a run gets to end after the signal (its cleanup ends its processes).
ENDS_WITHIN_S = 60.0
# Mid-run: after the first app-server started, within a run of 7 s (idle) to 25 s (loaded).
MID_RUN_S = (0.2, 3.0)
DURING_IMPORTS_S = (0.3, 1.0)
SECOND_AFTER_S = (0.02, 0.4)
# A run whose cleanup ended before the second Ctrl-C tested nothing: tried again.
TWICE_TRIES = 3


def _interrupted(
    ctx: Context,
    signum: int,
    code: int,
    *,
    mid_run: bool,
    twice: bool,
    verdict: bool,
    out_name: str = "out",
) -> Observed | None:
    """What the run did; None if `twice` and it ended before the second signal."""
    out = ctx.folder / out_name
    run = start_probe(ctx, out=out, name=out_name)
    if mid_run:
        checks.wait_until(checks.app_servers_running, PROBE_S, "an app-server start")
        delay = ctx.rng.uniform(*MID_RUN_S)
    else:
        delay = ctx.rng.uniform(*DURING_IMPORTS_S)
    try:
        run.wait(delay)
        return Observed(False, f"the run ended by itself before the signal ({delay:.1f}s)")
    except TimeoutError:
        pass
    sent_at = run.elapsed()
    run.send(signum)
    said = f"{signal.Signals(signum).name} at {sent_at:.1f}s"
    if twice:
        second = ctx.rng.uniform(*SECOND_AFTER_S)
        try:
            run.wait(second)
            return None
        except TimeoutError:
            run.send(signum)
            said += f" and {second:.2f}s later"
    run.wait(ENDS_WITHIN_S)
    problems = checks.exit_code(run, code) + checks.one_line(run)
    if verdict:
        problems += checks.incomplete_verdict(out)
    problems += checks.left_nothing(ctx)
    seen = f"{said}: exit {run.process.returncode}, stderr: {checks.last_line(run)}"
    return observed(problems, seen)


def _once(ctx: Context, signum: int, code: int, *, mid_run: bool, verdict: bool) -> Observed:
    seen = _interrupted(ctx, signum, code, mid_run=mid_run, twice=False, verdict=verdict)
    assert seen is not None  # only a second signal can come too late
    return seen


def ctrl_c_during_imports(ctx: Context) -> Observed:
    return _once(ctx, signal.SIGINT, 130, mid_run=False, verdict=False)


def ctrl_c_mid_run(ctx: Context) -> Observed:
    return _once(ctx, signal.SIGINT, 130, mid_run=True, verdict=True)


def ctrl_c_twice(ctx: Context) -> Observed:
    for attempt in range(1, TWICE_TRIES + 1):
        name = f"out-{attempt}"
        seen = _interrupted(
            ctx, signal.SIGINT, 130, mid_run=True, twice=True, verdict=False, out_name=name
        )
        if seen is not None:
            return seen
    return Observed(False, f"each of {TWICE_TRIES} runs ended before its second Ctrl-C")


def sigterm(ctx: Context) -> Observed:
    return _once(ctx, signal.SIGTERM, 143, mid_run=True, verdict=True)


def sighup(ctx: Context) -> Observed:
    return _once(ctx, signal.SIGHUP, 129, mid_run=True, verdict=True)


LEFT_NOTHING = "nothing left running, no codex-probe-* homes left"
ROWS = [
    Row(
        "Ctrl-C during imports",
        f"exit 130, one line on stderr, no traceback; {LEFT_NOTHING}",
        ctrl_c_during_imports,
        deadline_s=120.0,
        defect="#5",
    ),
    Row(
        "Ctrl-C mid-run",
        f"exit 130, one line, verdict.json incomplete with what is missing; {LEFT_NOTHING}",
        ctrl_c_mid_run,
        deadline_s=PROBE_S + 120.0,
    ),
    Row(
        "Ctrl-C twice (second in cleanup)",
        f"exit 130, one line on stderr, no traceback; {LEFT_NOTHING}",
        ctrl_c_twice,
        deadline_s=PROBE_S + 120.0,
        defect="#5",
    ),
    Row(
        "SIGTERM mid-run",
        f"exit 143, one line, verdict.json incomplete; {LEFT_NOTHING}",
        sigterm,
        deadline_s=PROBE_S + 120.0,
        defect="#4",
    ),
    Row(
        "SIGHUP mid-run",
        f"exit 129, one line, verdict.json incomplete; {LEFT_NOTHING}",
        sighup,
        deadline_s=PROBE_S + 120.0,
        defect="#4",
    ),
]
