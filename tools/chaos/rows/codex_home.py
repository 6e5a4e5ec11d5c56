"""The user's ~/.codex is never read or written: with a scratch HOME holding a ~/.codex
(its config's model provider points where nothing listens), a probe run leaves it
byte-for-byte as it was, no process it starts gets it as HOME or CODEX_HOME, and the
finding still holds (codex would break on that provider)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from tools.chaos import checks, environments
from tools.chaos.context import Context
from tools.chaos.probe_runs import PROBE_S, start_probe
from tools.chaos.row import Observed, Row, observed

FINDING = "start-applies-instructions"
USERS_CONFIG = """model = "users-model"
model_provider = "users"
[model_providers.users]
name = "users"
base_url = "http://127.0.0.1:9/v1"
wire_api = "responses"
"""


def tree_state(folder: Path) -> dict[str, tuple[str, float]]:
    """Every entry below `folder`: its content's hash (files) and its mtime."""
    state = {}
    for path in sorted(folder.rglob("*")):
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        state[str(path.relative_to(folder))] = (digest, path.stat().st_mtime)
    state["."] = ("dir", folder.stat().st_mtime)
    return state


def codex_home_untouched(ctx: Context) -> Observed:
    home = ctx.folder / "home"
    users = home / ".codex"
    (users / "sessions").mkdir(parents=True)
    (users / "config.toml").write_text(USERS_CONFIG)
    before = tree_state(users)
    out = ctx.folder / "out"
    run = start_probe(ctx, "--only", FINDING, out=out, env=ctx.env(HOME=str(home)))
    seen = environments.while_running(run, PROBE_S)
    pointing = sorted(
        f"{env.pid} {env.command[:40]}"
        for env in seen
        for entry in env.entries
        if entry in (f"HOME={home}", f"CODEX_HOME={users}")
    )
    problems = checks.exit_code(run, 0)
    if tree_state(users) != before:
        problems.append("~/.codex changed")
    if pointing:
        problems.append(f"{len(pointing)} process(es) got it as HOME/CODEX_HOME: {pointing[0]}")
    verdict = checks.findings(checks.verdict_file(out) or {}).get(f"0.171.0:{FINDING}", {})
    if verdict.get("verdict") != "holds":
        problems.append(f"{FINDING} is {verdict.get('verdict')}, not holds")
    problems += checks.left_nothing(ctx)
    return observed(problems, f"{len(seen)} processes read, {len(pointing)} pointed at ~/.codex")


ROWS = [
    Row(
        "~/.codex untouched",
        "a scratch HOME's ~/.codex unchanged (content, mtimes); no child has it as HOME or "
        f"CODEX_HOME; {FINDING} holds",
        codex_home_untouched,
        deadline_s=PROBE_S + 60.0,
    )
]
