"""Hostile input, full disks, read-only caches and two runs at once (issue 33): nothing
executed or written outside its folder, no "yes" from a corrupt record, no release lost or
recorded as not installable for a reason of this machine, one line and a documented exit
code for each.

The rows that need a mount (a small tmpfs, a read-only bind) run in a mount namespace of
their own (`unshare -m`, as root); on a host that allows none they say so and pass, naming
what they did not try."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tools.chaos import checks
from tools.chaos.context import CODEX_PROBE, Context, Run
from tools.chaos.probe_runs import PROBE_S, VERSION, start_probe
from tools.chaos.row import Observed, Row, observed

COMMAND_S = 120.0
INSTALL_S = 300.0
HOLDS = {"verdict": "holds", "required": True, "observed": {}}
# Cached releases the rows run (the brief's machine has them; others install from npm).
OLDER, NEWER = "0.161.0", "0.162.0"
NOT_CACHED = "0.162.1"
# A codex that writes one stderr line longer than the transport's 64 MiB stream limit, then
# runs the real one: `smoke` and `probe` must go on as if it had not.
LOUD_CODEX = """#!/bin/sh
head -c 67108865 /dev/zero | tr '\\0' x >&2
echo >&2
exec {real} "$@"
"""


def _mounts_allowed() -> str | None:
    """Why this host allows no mount namespace with a mount in it, or None."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return "not root, or no unshare"
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"],
        capture_output=True,
        check=False,
        timeout=30,
    )
    return None if done.returncode == 0 else f"unshare -m: {done.stderr.decode()[:120]}"


def _mounted(mount: str, argv: list[str]) -> list[str]:
    """`argv`, run in a mount namespace of its own after the shell command `mount`."""
    return ["unshare", "-m", "sh", "-c", f'{mount} && exec "$@"', "sh", *argv]


def _codex_probe(ctx: Context, *args: str, env: dict[str, str] | None = None) -> Run:
    return ctx.run([*CODEX_PROBE, *args], seconds=COMMAND_S, name="command", env=env)


def _usage_line(run: Run, code: int, says: str) -> list[str]:
    problems = checks.exit_code(run, code) + checks.one_line(run)
    if says not in run.stderr:
        problems.append(f"does not say {says!r}")
    return problems


def _history_folder(ctx: Context, document: dict[str, Any]) -> Path:
    folder = ctx.folder / "history"
    folder.mkdir(exist_ok=True)
    (folder / "history.json").write_text(json.dumps(document))
    return folder


def _files(folder: Path) -> set[Path]:
    return {path for path in folder.rglob("*") if path.is_file()}


# ----- names that would be paths ----------------------------------------------------------


def evil_version(ctx: Context) -> Observed:
    cache = ctx.folder / "x" / "cache"
    (cache / "codex").mkdir(parents=True)
    mark = ctx.folder / "executed"
    binary = ctx.folder / "evil" / "node_modules" / ".bin" / "codex"
    binary.parent.mkdir(parents=True)
    binary.write_text(f"#!/bin/sh\ntouch {mark}\necho codex-cli {VERSION}\n")
    binary.chmod(0o755)
    (ctx.folder / "evil" / "installed.json").write_text("{}\n")
    env = ctx.env(CODEX_PROBE_CACHE=str(cache))
    run = _codex_probe(ctx, "smoke", "--codex", "../../../evil", env=env)
    problems = _usage_line(run, 2, "is not a codex-cli version")
    if mark.exists():
        problems.append("the binary outside the cache ran")
    return observed(problems, f"exit {run.process.returncode}: {checks.last_line(run)}")


HOSTILE_VERSION_COMMANDS: list[list[str]] = [
    ["install", "--codex", "V"],
    ["schema", "--codex", "V"],
    ["validate", "--codex", "V", "/dev/null"],
    ["smoke", "--codex", "V"],
    ["probe", "--codex", "V"],
    ["learn", "--codex", "V"],
    ["repro", "start-applies-instructions", "--codex", "V"],
    ["watch", "--codex", "V"],
    ["bisect", "start-applies-instructions", "--from", "V", "--to", VERSION],
    ["history", "--from", "V", "--to", VERSION],
    ["diff", "--from", "V", "--to", VERSION],
    ["drive", "--codex", "V", "--message", "hi"],
    ["report", "--codex", "V"],
    ["gate", "--codex", "V"],
    ["can-i-upgrade", "--from", "V", "--to", VERSION],
    ["schema-diff", "--from", "V", "--to", VERSION],
]


def hostile_versions(ctx: Context) -> Observed:
    wrong = []
    for number, command in enumerate(HOSTILE_VERSION_COMMANDS):
        version = ("¹.².³", "9" * 10_000)[number % 2]
        argv = [*CODEX_PROBE, *(version if word == "V" else word for word in command)]
        run = ctx.run(argv, seconds=COMMAND_S, name=f"{command[0]}-{number}")
        if problems := _usage_line(run, 2, "is not a codex-cli version"):
            wrong.append(f"{command[0]}: {'; '.join(problems)}")
    seen = f"{len(HOSTILE_VERSION_COMMANDS)} commands, a 10,000-character version or ¹.².³"
    return observed(wrong, seen)


def site_outside_out(ctx: Context) -> Observed:
    release = {"findings": {"start-applies-instructions": HOLDS}}
    folder = _history_folder(ctx, {"releases": {"../../../../pwned": release}})
    out = ctx.folder / "a" / "b" / "site"
    run = _codex_probe(ctx, "site", "--history", str(folder), "--out", str(out))
    problems = _usage_line(run, 2, "pwned")
    pwned = [p for p in _files(ctx.folder.parent) if p.name.startswith("pwned")]
    if pwned:
        problems.append(f"wrote {', '.join(map(str, pwned))}")
    return observed(problems, f"exit {run.process.returncode}: {checks.last_line(run)}")


# ----- corrupt records ------------------------------------------------------------------

CORRUPT_TARGETS: list[Any] = [{"findings": {}}, {"findings": []}, {}, {"findings": 7}]


def corrupt_upgrade(ctx: Context) -> Observed:
    wrong = []
    for number, target in enumerate(CORRUPT_TARGETS):
        releases = {"0.162.0": {"findings": {"start-applies-instructions": HOLDS}}}
        folder = ctx.folder / f"h{number}"
        folder.mkdir()
        document = {"releases": {**releases, "0.162.1": target}}
        (folder / "history.json").write_text(json.dumps(document))
        argv = ["can-i-upgrade", "--from", "0.162.0", "--to", "0.162.1", "--no-run"]
        run = _codex_probe(ctx, *argv, "--history", str(folder))
        if run.process.returncode != 3 or "Traceback" in run.stderr:
            wrong.append(f"{json.dumps(target)}: exit {run.process.returncode}")
    return observed(wrong, f"{len(CORRUPT_TARGETS)} corrupt targets: unknown, exit 3")


WRONG_TYPES: list[tuple[str, Callable[[Context], list[str]], int, str]] = [
    (
        "site, a release's verdict: 7",
        lambda ctx: [
            "site",
            "--history",
            str(_history_folder(ctx, {"releases": {"0.1.0": {"findings": {"a": {"verdict": 7}}}}})),
            "--out",
            str(ctx.folder / "site"),
        ],
        2,
        "findings.a",
    ),
    (
        "site, change_points [{kind: 5}]",
        lambda ctx: [
            "site",
            "--history",
            str(_history_folder(ctx, {"releases": {}, "change_points": [{"kind": 5}]})),
            "--out",
            str(ctx.folder / "site"),
        ],
        2,
        "change_points[0]",
    ),
    (
        "diff --surfaces, missing: 5",
        lambda ctx: [
            "diff",
            "--from",
            VERSION,
            "--to",
            VERSION,
            "--surfaces",
            str(_surface_file(ctx, {"format": 1, "aspects": {}, "missing": 5})),
        ],
        2,
        "missing",
    ),
    (
        "gate, no findings",
        lambda ctx: ["gate", "--no-run", "--verdict", str(_verdict_file(ctx))],
        2,
        "verdict.json",
    ),
]


def _surface_file(ctx: Context, surface: dict[str, Any]) -> Path:
    path = ctx.folder / "surface.json"
    path.write_text(json.dumps({"versions": {VERSION: surface}}))
    return path


def _verdict_file(ctx: Context) -> Path:
    path = ctx.folder / "verdict.json"
    path.write_text(json.dumps({"versions": {VERSION: {"x": {"verdict": "holds"}}}}))
    return path


def wrong_types(ctx: Context) -> Observed:
    wrong = []
    for name, make, code, says in WRONG_TYPES:
        run = _codex_probe(ctx, *make(ctx))
        if problems := _usage_line(run, code, says):
            wrong.append(f"{name}: {'; '.join(problems)} ({checks.last_line(run)})")
    return observed(wrong, f"{len(WRONG_TYPES)} files of the wrong types: one line, exit 2")


# ----- two runs at once, installs, disks -------------------------------------------------


def two_histories(ctx: Context) -> Observed:
    out = ctx.folder / "history"
    first = ctx.start(
        [*CODEX_PROBE, "history", "--from", OLDER, "--to", OLDER, "--out", str(out)],
        name="first",
    )
    # The first holds the folder once it says what it will probe (it locks before that).
    checks.wait_until(lambda: "to probe" in first.stdout, COMMAND_S, "the first run's start")
    second = _codex_probe(ctx, "history", "--from", NEWER, "--to", NEWER, "--out", str(out))
    problems = _usage_line(second, 2, "is in use")
    first.send(2)  # Ctrl-C: it saves what it has and ends
    first.wait(COMMAND_S)
    document = json.loads((out / "history.json").read_text())
    if NEWER in document["releases"]:
        problems.append("the refused run wrote its release")
    seen = f"second: exit {second.process.returncode}: {checks.last_line(second)}"
    return observed(problems, seen)


def unpublished_leftovers(ctx: Context) -> Observed:
    cache = ctx.folder / "cache"
    run = _codex_probe(
        ctx, "install", "--codex", "0.0.999", env=ctx.env(CODEX_PROBE_CACHE=str(cache))
    )
    problems = _usage_line(run, 1, "not published")
    if left := sorted(p.name for p in (cache / "codex").glob("*")) if cache.exists() else []:
        problems.append(f"left {', '.join(left)}")
    return observed(problems, f"exit {run.process.returncode}: {checks.last_line(run)}")


def full_cache_disk(ctx: Context) -> Observed:
    if why := _mounts_allowed():
        return Observed(True, f"NOT RUN: no tmpfs can be mounted here ({why})")
    cache = ctx.folder / "cache"
    cache.mkdir()
    argv = [*CODEX_PROBE, "install", "--codex", NOT_CACHED]
    # npm's own cache too: a tarball it already holds must not spare the full disk.
    env = ctx.env(CODEX_PROBE_CACHE=str(cache), NPM_CONFIG_CACHE=str(cache / "npm"))
    mount = f"mount -t tmpfs -o size=64m tmpfs {cache}"
    run = ctx.run(_mounted(mount, argv), seconds=INSTALL_S, name="install", env=env)
    problems = checks.exit_code(run, 1) + checks.one_line(run)  # besides npm's progress
    if "no codex-cli" in run.stderr and "binary for this platform" in run.stderr:
        problems.append("a full disk taken for the registry's word")
    return observed(problems, f"exit {run.process.returncode}: {checks.last_line(run)}")


def read_only_cache(ctx: Context) -> Observed:
    if why := _mounts_allowed():
        return Observed(True, f"NOT RUN: no read-only mount here ({why})")
    cache = ctx.folder / "cache"
    (cache / "codex").mkdir(parents=True)
    mount = f"mount --bind -o ro {cache} {cache}"
    env = ctx.env(CODEX_PROBE_CACHE=str(cache))
    wrong = []
    for args, code, says in (
        (["install", "--codex", NOT_CACHED], 1, "cannot be installed into the cache"),
        (["probe", "--codex", VERSION, "--out", str(ctx.folder / "p")], 2, "launchers"),
        (
            ["history", "--from", OLDER, "--to", OLDER, "--out", str(ctx.folder / "h")],
            2,
            "launchers",
        ),
    ):
        run = ctx.run(_mounted(mount, [*CODEX_PROBE, *args]), seconds=INSTALL_S, env=env)
        if problems := _usage_line(run, code, says):
            wrong.append(f"{args[0]}: {'; '.join(problems)} ({checks.last_line(run)})")
    return observed(wrong, "install, probe and history on a read-only cache: one line each")


def full_out_disk(ctx: Context) -> Observed:
    if why := _mounts_allowed():
        return Observed(True, f"NOT RUN: no tmpfs can be mounted here ({why})")
    source = ctx.folder / "shard"
    (source / "releases" / OLDER).mkdir(parents=True)
    (source / "releases" / OLDER / "big").write_bytes(os.urandom(2 << 20))
    entry = {"probed_at": "2026-12-02T00:00:00Z", "findings": {"a": HOLDS}}
    (source / "history.json").write_text(json.dumps({"releases": {OLDER: entry}}))
    out = ctx.folder / "out"
    out.mkdir()
    argv = [*CODEX_PROBE, "history", "merge", str(source / "history.json"), "--out", str(out)]
    run = ctx.run(_mounted(f"mount -t tmpfs -o size=1m tmpfs {out}", argv), seconds=COMMAND_S)
    problems = _usage_line(run, 3, "No space left on device")
    return observed(problems, f"exit {run.process.returncode}: {checks.last_line(run)}")


# ----- codex that misbehaves; a run cut short ----------------------------------------------


def loud_codex(ctx: Context) -> Observed:
    cache = ctx.folder / "cache"
    install = cache / "codex" / VERSION
    real = ctx.cache / "codex" / VERSION / "node_modules" / ".bin" / "codex"
    (install / "node_modules" / ".bin").mkdir(parents=True)
    (install / "node_modules" / ".bin" / "codex").write_text(LOUD_CODEX.format(real=real))
    (install / "node_modules" / ".bin" / "codex").chmod(0o755)
    (install / "installed.json").write_text(json.dumps({"name": VERSION}) + "\n")
    env = ctx.env(CODEX_PROBE_CACHE=str(cache))
    smoke = ctx.run([*CODEX_PROBE, "smoke", "--codex", VERSION], seconds=PROBE_S, env=env)
    problems = [f"smoke: {p}" for p in checks.exit_code(smoke, 0)]
    out = ctx.folder / "probe"
    only = ["--only", "start-applies-instructions", "--no-fidelity"]
    probe = start_probe(ctx, *only, out=out, env=env)
    probe.wait(PROBE_S)
    if "Traceback" in smoke.stderr + probe.stderr:
        problems.append("a traceback")
    if not (out / "verdict.json").is_file():
        problems.append("probe wrote no verdict.json")
    seen = f"smoke exit {smoke.process.returncode}, probe exit {probe.process.returncode}"
    return observed(problems, seen)


def report_after_kill(ctx: Context) -> Observed:
    out = ctx.folder / "out"
    run = start_probe(ctx, "--backend", "fake", out=out)
    checks.wait_until(
        lambda: any((out / "allure-results").glob("*-result.json")), PROBE_S, "a first result"
    )
    run.kill()
    run.wait(10.0)
    report = _codex_probe(ctx, "report", "--out", str(out))
    problems = _usage_line(report, 3, "is incomplete")
    return observed(problems, f"exit {report.process.returncode}: {checks.last_line(report)}")


ROWS = [
    Row(
        "hostile: --codex ../../../evil",
        "exit 2, one line; the binary beside the cache never runs",
        evil_version,
        deadline_s=2 * COMMAND_S,
    ),
    Row(
        "hostile: versions of 10,000 characters or ¹.².³ on 16 commands",
        "exit 2 and one line from each",
        hostile_versions,
        deadline_s=16 * COMMAND_S,
    ),
    Row(
        "hostile: site from a history with the release '../../../../pwned'",
        "exit 2, one line; nothing written outside --out",
        site_outside_out,
        deadline_s=2 * COMMAND_S,
    ),
    Row(
        "hostile: can-i-upgrade from a corrupt record",
        "unknown, exit 3, for findings {}, [], missing, 7",
        corrupt_upgrade,
        deadline_s=4 * COMMAND_S,
    ),
    Row(
        "hostile: wrong types in history.json, surface.json, verdict.json",
        "exit 2, one line naming the file and field",
        wrong_types,
        deadline_s=4 * COMMAND_S,
    ),
    Row(
        "hostile: two history runs into one --out",
        "the second refused in one line (exit 2); the first's history intact",
        two_histories,
        deadline_s=4 * COMMAND_S,
    ),
    Row(
        "hostile: install of an unpublished version",
        "exit 1, one line; no .V.lock or .V.in-use left in the cache",
        unpublished_leftovers,
        deadline_s=2 * COMMAND_S,
    ),
    Row(
        "hostile: install into a full 64 MB cache (tmpfs)",
        "exit 1, one line, a fault of this machine (never 'no binary for this platform')",
        full_cache_disk,
        deadline_s=2 * INSTALL_S,
    ),
    Row(
        "hostile: install, probe, history on a read-only cache",
        "one line each (exit 1, 2, 2)",
        read_only_cache,
        deadline_s=3 * INSTALL_S,
    ),
    Row(
        "hostile: history merge into a full --out (tmpfs)",
        "exit 3, one line saying no space",
        full_out_disk,
        deadline_s=2 * COMMAND_S,
    ),
    Row(
        "hostile: codex writes a 64 MiB line to stderr",
        "smoke exit 0; probe writes verdict.json; no traceback",
        loud_codex,
        deadline_s=3 * PROBE_S,
    ),
    Row(
        "hostile: report after kill -9 of probe",
        "exit 3, one line: the verdict is incomplete",
        report_after_kill,
        deadline_s=2 * PROBE_S,
    ),
]
