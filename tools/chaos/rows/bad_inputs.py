"""Bad input, each its own row: one line on stderr that names the problem (and the file
and line where there is one), the documented exit code, never a traceback.

The reproduction bundle rows damage one line of a bundle's requests.jsonl with valid JSON
of the wrong shape: a damaged bundle must say so (exit 2), not pass for a behaviour
change (exit 1)."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tools.chaos import checks
from tools.chaos.context import CODEX_PROBE, FAKE_CODEX, Context, Run
from tools.chaos.probe_runs import VERSION
from tools.chaos.row import Observed, Row, observed

COMMAND_S = 120.0
PROFILES = Path(__file__).resolve().parents[3] / "codex_probe" / "fake_appserver" / "profiles"
BUNDLE_FINDING = "resume-refresh-cold"
BAD_RULE = '{"method": "initialize", "action": "explode"}\n'


@dataclass(frozen=True)
class BadInput:
    name: str
    code: int
    says: str  # what the one line must contain ({folder} is the row's folder)
    make: Callable[[Context], Run]
    defect: str = ""


def _codex_probe(*args: str) -> Callable[[Context], Run]:
    def make(ctx: Context) -> Run:
        (ctx.folder / "a-file").write_text("not a folder\n")
        (ctx.folder / "bad.jsonl").write_text(BAD_RULE)
        lines = (PROFILES / f"{VERSION}.json").read_text().splitlines(keepends=True)
        (ctx.folder / "truncated.json").write_text("".join(lines[:10]))
        transcript = '{"dir": "send", "t": 0.5, "msg": {}}\n{"t": 0}\n'
        (ctx.folder / "t.jsonl").write_text(transcript)
        baseline = '[[expected]]\ncodex = "0.171.0"\nid = "x"\nreson = "a typo"\n'
        (ctx.folder / "baseline.toml").write_text(baseline)
        return ctx.run([*CODEX_PROBE, *args], seconds=COMMAND_S, name="command")

    return make


def _fake_codex(*args: str) -> Callable[[Context], Run]:
    def make(ctx: Context) -> Run:
        (ctx.folder / "bad.jsonl").write_text(BAD_RULE)
        lines = (PROFILES / f"{VERSION}.json").read_text().splitlines(keepends=True)
        (ctx.folder / "truncated.json").write_text("".join(lines[:10]))
        env = {k: v for k, v in ctx.env().items() if k != "CODEX_HOME"}
        return ctx.run([*FAKE_CODEX, *args], seconds=COMMAND_S, name="fake", env=env)

    return make


def _bundle(ctx: Context) -> Path:
    """A reproduction bundle of a finding that changed on VERSION, made once per campaign."""
    bundle = ctx.folder.parent / "shared-bundle"
    if not (bundle / "reproduce.py").is_file():
        argv = [*CODEX_PROBE, "repro", BUNDLE_FINDING, "--codex", VERSION, "--out", str(bundle)]
        made = ctx.run(argv, seconds=COMMAND_S, name="repro")
        if made.process.returncode != 0:
            raise RuntimeError(f"codex-probe repro exited {made.process.returncode}")
    return bundle


def _damaged_bundle(line: str) -> Callable[[Context], Run]:
    def make(ctx: Context) -> Run:
        copy = ctx.folder / "bundle"
        shutil.copytree(_bundle(ctx), copy)
        requests = copy / "requests.jsonl"
        lines = requests.read_text().splitlines(keepends=True)
        lines[1] = line + "\n"
        requests.write_text("".join(lines))
        codex = ctx.cache / "codex" / VERSION / "node_modules" / ".bin" / "codex"
        argv = [sys.executable, str(copy / "reproduce.py"), "--codex", str(codex)]
        return ctx.run(argv, seconds=COMMAND_S, name="reproduce")

    return make


BAD_INPUTS = [
    BadInput("probe --only an unknown id", 2, "unknown id", _codex_probe("probe", "--only", "x")),
    BadInput(
        "probe --codex unpublished", 2, "not published", _codex_probe("probe", "--codex", "9.9.9")
    ),
    BadInput("probe --out a file", 2, "is a file", _codex_probe("probe", "--out", "a-file")),
    BadInput(
        "probe --fake-script bad rule",
        2,
        "bad.jsonl:1: unknown action",
        _codex_probe("probe", "--backend", "fake", "--fake-script", "bad.jsonl"),
    ),
    BadInput(
        "probe --fake-profile truncated",
        2,
        "invalid JSON at line 11:1",
        _codex_probe("probe", "--backend", "fake", "--fake-profile", "truncated.json"),
    ),
    BadInput("probe --jobs 0", 2, "--jobs", _codex_probe("probe", "--jobs", "0")),
    BadInput("probe --repeat 0", 2, "--repeat", _codex_probe("probe", "--repeat", "0")),
    BadInput(
        "cache prune --keep-installs -1",
        2,
        "--keep-installs",
        _codex_probe("cache", "prune", "--keep-installs", "-1"),
    ),
    BadInput(
        "validate a broken transcript",
        2,
        "t.jsonl:2: not a transcript entry",
        _codex_probe("validate", "--codex", VERSION, "t.jsonl"),
    ),
    BadInput(
        "drive --turn-timeout nan",
        2,
        "--turn-timeout",
        _codex_probe("drive", "--backend", "fake", "--message", "hi", "--turn-timeout", "nan"),
    ),
    BadInput(
        "history --keep-installs 0",
        2,
        "--keep-installs",
        _codex_probe("history", "--keep-installs", "0"),
    ),
    BadInput(
        "bisect an unknown finding",
        2,
        "not an assumption id",
        _codex_probe("bisect", "x", "--from", "0.120.0", "--to", VERSION),
    ),
    BadInput(
        "compile --event unknown", 2, "unknown event", _codex_probe("compile", "--event", "y")
    ),
    BadInput(
        "gate --baseline with a typo",
        2,
        "baseline.toml: expected #1: unknown key(s) reson",
        _codex_probe("gate", "--baseline", "baseline.toml", "--no-run"),
    ),
    BadInput("repro an unknown finding", 2, "unknown finding", _codex_probe("repro", "x")),
    BadInput("learn unpublished", 2, "not published", _codex_probe("learn", "--codex", "9.9.9")),
    BadInput(
        "fake-codex --script bad, no CODEX_HOME",
        2,
        "bad.jsonl:1: unknown action",
        _fake_codex("--script", "bad.jsonl", "app-server"),
    ),
    BadInput(
        "fake-codex --profile truncated",
        2,
        "invalid JSON at line 11:1",
        _fake_codex("--profile", "./truncated.json", "--version"),
    ),
    *(
        BadInput(
            f"bundle requests.jsonl line {shape}",
            2,
            "requests.jsonl:2",
            _damaged_bundle(line),
            defect="#7",
        )
        for shape, line in (
            ("{}", "{}"),
            ("[1,2,3]", "[1, 2, 3]"),
            ("a string", json.dumps("a string")),
            ("without step", json.dumps({"label": "x", "request": {"method": "m"}})),
        )
    ),
]


def _check(bad: BadInput) -> Callable[[Context], Observed]:
    def check(ctx: Context) -> Observed:
        run = bad.make(ctx)
        problems = checks.exit_code(run, bad.code) + checks.one_line(run)
        if bad.says not in run.stderr:
            problems.append(f"does not say {bad.says!r}")
        problems += checks.left_nothing(ctx)
        return observed(problems, f"exit {run.process.returncode}: {checks.last_line(run)}")

    return check


ROWS = [
    Row(
        f"bad input: {bad.name}",
        f"exit {bad.code}, one line naming {bad.says!r}, no traceback",
        _check(bad),
        deadline_s=2 * COMMAND_S,
        defect=bad.defect,
    )
    for bad in BAD_INPUTS
]
