"""Releases older than the protocol the probes need (issue 25, defect 8).

0.100.0 has no thread/unsubscribe (its own schema says so): the finding that needs it is
*unsupported by this release*, a verdict of its own naming the missing method, and the
run is not failed as a harness failure would fail it. 0.80.0 rejects `--listen`: no probe
can drive it, so the run says why in one line, exits 3, and writes no profile."""

from __future__ import annotations

from tools.chaos import checks
from tools.chaos.context import Context
from tools.chaos.probe_runs import start_probe
from tools.chaos.row import Observed, Row, observed

# First use installs the release into the cache (npm), then the probe runs.
RUN_S = 600.0
UNSUBSCRIBE_FINDING = "resume-refresh-unsubscribed"


def unsubscribe_unsupported(ctx: Context) -> Observed:
    out = ctx.folder / "out"
    run = start_probe(
        ctx, "--only", UNSUBSCRIBE_FINDING, "--no-fidelity", out=out, version="0.100.0"
    )
    run.wait(RUN_S)
    entry = checks.findings(checks.verdict_file(out) or {}).get(
        f"0.100.0:{UNSUBSCRIBE_FINDING}", {}
    )
    verdict = str(entry.get("verdict"))
    said = " ".join([str(entry.get("summary", "")), *entry.get("evidence", [])])
    problems = checks.exit_code(run, 0)
    if "unsupported" not in verdict:
        problems.append(f"{UNSUBSCRIBE_FINDING} is {verdict}, not unsupported")
    if "thread/unsubscribe" not in said:
        problems.append("its evidence does not name thread/unsubscribe")
    problems += checks.left_nothing(ctx)
    return observed(problems, f"exit {run.process.returncode}; {UNSUBSCRIBE_FINDING} {verdict}")


def cannot_drive(ctx: Context) -> Observed:
    out = ctx.folder / "out"
    run = start_probe(ctx, out=out, version="0.80.0")
    run.wait(RUN_S)
    problems = checks.exit_code(run, 3) + checks.one_line(run)
    profiles = sorted(p.name for p in out.rglob("*.json") if "learned" in p.parts)
    if profiles:
        problems.append(f"a profile was written: {', '.join(profiles)}")
    problems += checks.left_nothing(ctx)
    return observed(problems, f"exit {run.process.returncode}: {checks.last_line(run)}")


ROWS = [
    Row(
        "old release 0.100.0",
        f"{UNSUBSCRIBE_FINDING}: unsupported by this release, naming thread/unsubscribe; "
        "exit 0 (not a harness failure)",
        unsubscribe_unsupported,
        deadline_s=RUN_S + 60.0,
        defect="#8",
    ),
    Row(
        "old release 0.80.0",
        "one line saying why the probes cannot drive it, exit 3, no profile written",
        cannot_drive,
        deadline_s=RUN_S + 60.0,
        defect="#8",
    ),
]
