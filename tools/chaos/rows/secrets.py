"""Secrets in codex-probe's environment never reach a process it starts: a canary under
each name a secret goes by is planted, and /proc/PID/environ of every process below the
run is read while it runs."""

from __future__ import annotations

import uuid

from tools.chaos import checks, environments
from tools.chaos.context import Context
from tools.chaos.probe_runs import PROBE_S, start_probe
from tools.chaos.row import Observed, Row, observed

NAMES = (
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_PAT",
    "CI_JOB_TOKEN",
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "ANTHROPIC_API_KEY",
    "AWS_SECRET_ACCESS_KEY",
    "NPM_TOKEN",
    "NPM_CONFIG__AUTHTOKEN",
)


def secrets_stay(ctx: Context) -> Observed:
    canaries = {name: f"canary-{uuid.uuid4().hex}" for name in NAMES}
    run = start_probe(ctx, out=ctx.folder / "out", env=ctx.env(**canaries))
    seen = environments.while_running(run, PROBE_S)
    leaks = sorted(
        f"{env.pid} {env.command[:40]}: {entry.split('=', 1)[0]}"
        for env in seen
        for entry in env.entries
        if any(value in entry for value in canaries.values())
    )
    problems = checks.exit_code(run, 0)
    if leaks:
        problems.append(f"{len(leaks)} canary leak(s): {'; '.join(leaks[:3])}")
    if not seen:
        problems.append("no child process was seen")
    problems += checks.left_nothing(ctx)
    return observed(problems, f"{len(seen)} processes read, {len(leaks)} canary leak(s)")


ROWS = [
    Row(
        "secrets in the environment",
        "no canary secret in /proc/PID/environ of any process the run starts; exit 0",
        secrets_stay,
        deadline_s=PROBE_S + 60.0,
    )
]
