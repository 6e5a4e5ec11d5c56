"""A hung app-server (the fake, told to never answer thread/start) ends the run within its
deadline as a broken finding that names the hang, and leaves nothing behind."""

from __future__ import annotations

import json

from tools.chaos import checks
from tools.chaos.context import Context
from tools.chaos.probe_runs import start_probe
from tools.chaos.row import Observed, Row, observed

FINDING = "start-applies-instructions"
# The probe's step deadline is 60 s; the run ends a little after it.
RUN_S = 180.0


def hang(ctx: Context) -> Observed:
    script = ctx.folder / "hang.jsonl"
    script.write_text(json.dumps({"method": "thread/start", "action": "hang"}) + "\n")
    out = ctx.folder / "out"
    run = start_probe(
        ctx, "--backend", "fake", "--fake-script", str(script), "--only", FINDING, out=out
    )
    run.wait(RUN_S)
    problems = checks.exit_code(run, 3)
    document = checks.verdict_file(out) or {}
    entry = checks.findings(document).get(f"0.171.0:{FINDING}", {})
    evidence = " ".join(entry.get("evidence", []))
    if entry.get("verdict") != "broken" or "thread/start" not in evidence:
        problems.append(f"{FINDING} is {entry.get('verdict')}, not broken naming thread/start")
    problems += checks.left_nothing(ctx)
    seen = f"exit {run.process.returncode} after {run.elapsed():.0f}s; {FINDING} " + str(
        entry.get("verdict")
    )
    return observed(problems, seen)


ROWS = [
    Row(
        "hang (fake never answers)",
        "exit 3 within 180 s; the finding broken, naming thread/start; nothing left running, "
        "no codex-probe-* homes left",
        hang,
        deadline_s=240.0,
    )
]
