"""A system codex config planted in /etc/codex (config.toml and managed_config.toml whose
model provider points where nothing listens) never reaches a probe run: codex starts
sealed. The config is planted in a throwaway mount namespace (`unshare -m`; as another
user, inside a user namespace that maps it to root) whose /etc is an overlay: the host's
/etc is never written."""

from __future__ import annotations

import os
import shutil

from tools.chaos import checks
from tools.chaos.context import CODEX_PROBE, Context
from tools.chaos.probe_runs import PROBE_S, VERSION
from tools.chaos.row import Observed, Row, observed

FINDING = "start-applies-instructions"
SYSTEM_CONFIG = "/etc/codex"
PLANTED = """model = "planted-model"
model_provider = "planted"
[model_providers.planted]
name = "planted"
base_url = "http://127.0.0.1:9/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
"""
# $1 a folder for the overlay, $2 the planted config; then the command.
PLANT = (
    'set -e; mount -t tmpfs tmpfs "$1"; mkdir "$1/upper" "$1/work"; '
    'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/upper,workdir=$1/work" /etc; '
    f'mkdir -p {SYSTEM_CONFIG}; cp "$2" {SYSTEM_CONFIG}/config.toml; '
    f'cp "$2" {SYSTEM_CONFIG}/managed_config.toml; shift 2; exec "$@"'
)


def planted_etc_codex(ctx: Context) -> Observed:
    unshare = shutil.which("unshare")
    if unshare is None:
        return Observed(False, "needs unshare (util-linux) for a throwaway namespace")
    host_had_it = os.path.lexists(SYSTEM_CONFIG)
    overlay = ctx.folder / "overlay"
    overlay.mkdir()
    config = ctx.folder / "planted.toml"
    config.write_text(PLANTED)
    out = ctx.folder / "out"
    probe = [*CODEX_PROBE, "probe", "--codex", VERSION, "--only", FINDING, "--out", str(out)]
    as_root = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    namespace = [unshare, *as_root, "--mount", "--propagation", "private", "--"]
    plant = ["/bin/sh", "-c", PLANT, "plant", str(overlay), str(config)]
    run = ctx.start([*namespace, *plant, *probe])
    run.wait(PROBE_S)
    problems = checks.exit_code(run, 0)
    document = checks.verdict_file(out) or {}
    verdict = checks.findings(document).get(f"{VERSION}:{FINDING}", {}).get("verdict")
    if verdict != "holds":
        problems.append(f"{FINDING} is {verdict}, not holds")
    sealing = document.get("sealing", {}).get(VERSION, {})
    covered = any(f"tmpfs over {SYSTEM_CONFIG}" in how for how in sealing.get("how", []))
    if not sealing.get("sealed") or not covered:
        problems.append(f"verdict.json does not say {SYSTEM_CONFIG} was covered")
    if os.path.lexists(SYSTEM_CONFIG) != host_had_it:
        problems.append(f"the host's {SYSTEM_CONFIG} changed")
    problems += checks.left_nothing(ctx)
    seen = f"exit {run.process.returncode}; {FINDING} {verdict}; sealed={sealing.get('sealed')}"
    return observed(problems, seen)


ROWS = [
    Row(
        "planted /etc/codex",
        f"exit 0; {FINDING} holds; verdict.json: sealed, {SYSTEM_CONFIG} covered by a tmpfs",
        planted_etc_codex,
        deadline_s=PROBE_S + 60.0,
    )
]
