"""`codex-probe repro FINDING`: a folder that shows upstream what codex does, runnable with
Python and the codex binary alone."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import install_failures_end_command
from codex_probe.cli.commands.options import add_codex_option, add_json_option
from codex_probe.cli.commands.output import output_problem
from codex_probe.harness.codex.install import install
from codex_probe.harness.interrupts import run_interruptible
from codex_probe.probes.domain.assumptions import BY_ID
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX, Verdict
from codex_probe.probes.releases.repro.bundle import (
    BUNDLE_FILES,
    NotBundled,
    bundle_name,
    why_not_bundled,
)
from codex_probe.probes.releases.repro.bundle import write_bundle as write_finding_bundle
from codex_probe.probes.runner.plan import RunPlan
from codex_probe.probes.runner.release_run import run_release
from codex_probe.probes.runner.scenarios import SCENARIOS
from codex_probe.probes.runner.selection import Selection

# Exit codes: 0 the bundle is written; 1 no bundle can reproduce this finding (the line
# says why); 2 usage (an unknown finding, an unpublished version, an --out that is a file).
NOT_BUNDLED, USAGE = 1, 2


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "repro",
        help="write a self-contained reproduction bundle of one finding",
        description="Probe FINDING's scenario on the real codex-cli VERSION and write a folder "
        "that reproduces it with Python and the codex binary alone: README.md, reproduce.py "
        "(standard library only), config.toml, the JSON-RPC requests (requests.jsonl), the "
        "model replies (replies.jsonl) and the observation. Exit 0: written; 1: no bundle can "
        "reproduce this finding (a fake-fidelity finding, or a run the bundle cannot judge as "
        "the probe does); 2: usage.",
    )
    parser.add_argument(
        "finding",
        metavar="FINDING",
        help="an assumption id (`codex-probe findings` lists them; a fake-fidelity finding "
        "judges our fake, so no bundle reproduces it)",
    )
    add_codex_option(parser, "the release to reproduce it on")
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="the bundle's folder (default reports/repro/FINDING-VERSION)",
    )
    add_json_option(parser, "the verdict, the bundle's folder and the command that runs it")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    finding_id: str = args.finding
    known = set(BY_ID) | {f"{FIDELITY_ID_PREFIX}{scenario}" for scenario in SCENARIOS}
    if finding_id not in known:
        return _say(f"unknown finding {finding_id}; findings: {', '.join(sorted(BY_ID))}", USAGE)
    if args.out is not None and (problem := output_problem(args.out, *BUNDLE_FILES)):
        return _say(problem, USAGE)
    if refusal := why_not_bundled(finding_id):
        return _say(f"no bundle for {finding_id}: {refusal}", NOT_BUNDLED)
    with install_failures_end_command(USAGE):
        installation = install(args.codex)
    version = installation.version
    out: Path = args.out or Path("reports") / "repro" / bundle_name(finding_id, version)
    if problem := output_problem(out, *BUNDLE_FILES):
        return _say(problem, USAGE)
    selection = Selection.of([finding_id], fidelity=False)
    release = run_interruptible(lambda: run_release(RunPlan(version, selection)))
    finding = release.findings[finding_id]
    try:
        readme = write_finding_bundle(out, finding, release.subject[BY_ID[finding_id].scenario])
    except NotBundled as refusal:
        return _say(f"no bundle for {finding_id} on {version}: {refusal}", NOT_BUNDLED)
    command = f"python3 {readme.parent / 'reproduce.py'} --codex {installation.binary}"
    if args.json:
        document = {
            "finding": finding_id,
            "version": version,
            "verdict": finding.verdict.value,
            "summary": finding.summary,
            "bundle": str(readme.parent),
            "run": command,
        }
        print(json.dumps(document, indent=2))
        return 0
    print(f"{finding_id} on codex-cli {version}: {finding.verdict.value}")
    if finding.verdict is not Verdict.HOLDS and finding.summary:
        print(f"  {finding.summary}")
    print(f"bundle: {readme.parent}")
    print(f"run it: {command}")
    return 0


def _say(problem: str, exit_code: int) -> int:
    print(f"codex-probe repro: {problem}", file=sys.stderr)
    return exit_code
