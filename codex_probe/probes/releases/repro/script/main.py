#!/usr/bin/env python3
"""Reproduce one codex-probe finding with nothing but Python 3 and the codex binary.

    python3 reproduce.py --codex PATH_TO_CODEX [--timeout S] [--keep] [--json]

Beside this file: finding.json (what the design expects and how each observed value is
read), reading.py (codex-probe's own code that reads those values from a run, verbatim),
requests.jsonl (the scenario's JSON-RPC requests in order, with what each step
waits for), replies.jsonl (the model replies queued at a step), config.toml (the codex
home's config), observation.json (what codex-probe recorded) and seal.py (codex-probe's
own launcher that hides the host's /etc/codex and any .git above codex's working
directory; where it cannot, codex runs unsealed and the report says what it could see).

It starts a mock Responses API on 127.0.0.1 (a port the OS chooses), writes config.toml
into a fresh CODEX_HOME pointing codex at it, runs `codex app-server` over stdio and
replays the requests, putting the ids codex generates where requests.jsonl says
{{thread:A}} or {{turn:LABEL}}. Then it reads the finding's values from what codex sent
the model and answered, and prints them beside the expected and the recorded ones.

Exit 0: codex behaves as recorded; 1: it does not; 2: the run could not be made (no
codex, a step without an answer within its deadline, a refusal of a step the scenario
needs). Every wait has a deadline; every process it starts is ended before it exits.

It imports the standard library only: it is handed to people who will not install codex-probe. (In
codex-probe it is assembled from codex_probe/probes/releases/repro/script/ into one file.)
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from codex_probe.probes.releases.repro.script.app_server import version_of
from codex_probe.probes.releases.repro.script.bundle_files import Bundle
from codex_probe.probes.releases.repro.script.bundled import load_bundled
from codex_probe.probes.releases.repro.script.outcomes import (
    COULD_NOT_RUN,
    NOT_REPRODUCED,
    REPRODUCED,
    CouldNotRun,
)
from codex_probe.probes.releases.repro.script.replay import Replay
from codex_probe.probes.releases.repro.script.sealing import sealing_line

STEP_TIMEOUT_S = 60.0
VERSION_TIMEOUT_S = 10.0


READING_FILE = "reading.py"
READING_MODULE = "codex_probe_bundled_reading"


def load_reading(folder: Path) -> ModuleType:
    """The bundle's reading.py: codex-probe's own code that judges a run, verbatim."""
    reading, why = load_bundled(folder / READING_FILE, READING_MODULE)
    if reading is None:
        raise CouldNotRun(f"the bundle cannot judge a run: {why}")
    return reading


def outcome(reading: ModuleType, record: dict[str, Any], finding: dict[str, Any]) -> dict[str, Any]:
    """The finding on a record, as codex-probe judges it: holds, changed (with the observed
    values) or broken (with the failure: a step that failed, an unmet precondition, a value
    that cannot be read)."""
    judged: dict[str, Any] = reading.judge(
        record, finding["reads"], finding["expected"], finding["refusal_rules"]
    )
    return judged


def compare(live: dict[str, Any], recorded: dict[str, Any], expected: Any) -> int:
    """REPRODUCED when this run ends as recorded: the same values of every compared key
    (`expected`: the expected keys, and those deciding a watched upstream issue), or the
    same failure (step and kind). A failure that was not recorded: COULD_NOT_RUN."""
    if live["failure"] is not None:
        same = recorded["failure"] is not None and all(
            live["failure"][key] == recorded["failure"][key] for key in ("step", "kind")
        )
        return REPRODUCED if same else COULD_NOT_RUN
    if recorded["failure"] is not None:
        return NOT_REPRODUCED
    differs = [
        key for key in expected if live["observed"].get(key) != recorded["observed"].get(key)
    ]
    return NOT_REPRODUCED if differs else REPRODUCED


def report(bundle: Bundle, live: dict[str, Any], code: int, facts: dict[str, Any]) -> str:
    finding, recorded = bundle.finding, bundle.recorded_outcome
    lines = [
        f"{finding['finding']} (spec {finding['spec_section']}), recorded on codex-cli "
        f"{finding['version']}: {recorded['verdict']}",
        f"  {finding['statement']}",
        f"codex: {facts['codex']} ({facts['codex_version']}); "
        f"{facts['steps']} step(s) in {facts['seconds']:.1f} s",
        sealing_line(facts["sealing"]),
    ]
    if finding["version"] not in facts["codex_version"]:
        lines.append(f"note: the finding was recorded on codex-cli {finding['version']}")
    lines.append("")
    keys = list(finding["expected"]) + [k for k in finding["reads"] if k not in finding["expected"]]
    rows = [("value", "expected", f"recorded ({finding['version']})", "this run")]
    for key in keys:
        rows.append(
            (
                key,
                _shown(finding["expected"], key, "-"),
                _shown(recorded["observed"], key, "?"),
                _shown(live["observed"], key, "?"),
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    for row in rows:
        cells = [row[column].ljust(widths[column]) for column in range(3)]
        lines.append("  ".join([*cells, row[3]]))
    for name, result in (("recorded", recorded), ("this run", live)):
        if result["failure"] is not None:
            step, kind, detail = (result["failure"][key] for key in ("step", "kind", "detail"))
            lines.append(f"{name}: broken at step {step} ({kind}): {detail}")
    lines.append(f"verdict now: {live['verdict']} (recorded: {recorded['verdict']})")
    lines.append(
        {
            REPRODUCED: "REPRODUCED: codex behaves as recorded (exit 0)",
            NOT_REPRODUCED: "NOT REPRODUCED: codex behaves otherwise than recorded (exit 1)",
            COULD_NOT_RUN: "COULD NOT RUN: the scenario did not get through (exit 2)",
        }[code]
    )
    return "\n".join(lines)


def _shown(values: dict[str, Any] | None, key: str, missing: str) -> str:
    if values is None or key not in values:
        return missing
    return json.dumps(values[key])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Replay a codex-probe finding against a codex binary (see README.md).",
        epilog="exit 0: reproduced; 1: codex behaves otherwise; 2: the run could not be made",
    )
    parser.add_argument(
        "--codex",
        required=True,
        help="the codex binary (node_modules/.bin/codex of `npm install @openai/codex@VERSION`)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=STEP_TIMEOUT_S,
        metavar="S",
        help=f"the deadline of each wait, in seconds (default {STEP_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the codex home, and this run's record in it"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    args = parser.parse_args(argv)
    # A SIGTERM ends the run like Ctrl-C does: through the `finally` that ends codex.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(COULD_NOT_RUN))
    root = Path(tempfile.mkdtemp(prefix="codex-repro-"))
    try:
        bundle = Bundle(Path(__file__).resolve().parent)
        reading = load_reading(bundle.folder)
        codex = shutil.which(args.codex)
        if codex is None:
            raise CouldNotRun(f"--codex {args.codex}: no such executable")
        replay = Replay(str(Path(codex).resolve()), bundle, args.timeout, root)
        version = version_of(codex, replay.env(), min(args.timeout, VERSION_TIMEOUT_S))
        started = time.monotonic()
        record = replay.run()
        facts = {
            "codex": codex,
            "codex_version": version,
            "steps": len(record["steps"]),
            "seconds": time.monotonic() - started,
            "sealing": replay.sealer.sealing,
        }
        if args.keep:
            (root / "observation.json").write_text(json.dumps(record, indent=1), "utf-8")
            print(f"kept: {root}", file=sys.stderr)
    except CouldNotRun as error:
        print(f"reproduce.py: could not run: {error}", file=sys.stderr)
        return COULD_NOT_RUN
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    live = outcome(reading, record, bundle.finding)
    compared = bundle.finding.get("compared") or list(bundle.finding["expected"])
    code = compare(live, bundle.recorded_outcome, compared)
    if args.json:
        recorded, expected = bundle.recorded_outcome, bundle.finding["expected"]
        result = {"exit": code, "outcome": live, "recorded": recorded, "expected": expected}
        print(json.dumps({**result, **facts}))
    else:
        print(report(bundle, live, code, facts))
    return code


if __name__ == "__main__":
    sys.exit(main())
