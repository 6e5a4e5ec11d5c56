"""`codex-probe findings`: every finding id, and which commands take it.

`probe --only ID` takes any finding (an assumption or a scenario's fake-fidelity finding),
`bisect FINDING` an assumption, `repro FINDING` an assumption a bundle can replay (a
fake-fidelity finding judges codex-probe's fake, not codex). The ids come from the registry
(codex_probe/probes/domain/assumptions.py) and the scenarios, as the probes know them.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from codex_probe.cli.commands.options import add_json_option
from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.releases.repro.bundle import why_not_bundled
from codex_probe.probes.runner.scenarios import SCENARIOS
from codex_probe.probes.runner.selection import fidelity_id

KINDS = ("assumption", "fidelity")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "findings",
        help="list every finding id, and which of --only, bisect and repro take it",
        description="List every finding the probes judge: each assumption of the design "
        "(required or informative, its spec section, the scenario it reads, its statement) "
        "and each scenario's fake-versus-real finding, with the commands that take its id: "
        "`probe --only ID`, `bisect FINDING`, `repro FINDING`.",
    )
    parser.add_argument(
        "--kind",
        choices=KINDS,
        help="only assumptions (the design's claims) or only fidelity findings (our fake)",
    )
    add_json_option(parser, "every finding")
    parser.set_defaults(handler=run)


def every_finding() -> list[dict[str, Any]]:
    """Each finding id the probes know, with what it is and which commands take it."""
    found: list[dict[str, Any]] = [
        {
            "id": a.id,
            "kind": "assumption",
            "required": a.required,
            "spec_section": a.spec_section,
            "scenario": a.scenario,
            "statement": a.statement,
            "takes": [
                "probe --only",
                "bisect",
                *(["repro"] if why_not_bundled(a.id) is None else []),
            ],
        }
        for a in ASSUMPTIONS
    ]
    found += [
        {
            "id": fidelity_id(scenario),
            "kind": "fidelity",
            "required": False,
            "spec_section": "fake",
            "scenario": scenario,
            "statement": f"the fake imitates the release in scenario {scenario}",
            "takes": ["probe --only"],
        }
        for scenario in SCENARIOS
    ]
    return found


def run(args: argparse.Namespace) -> int:
    found = [f for f in every_finding() if args.kind in (None, f["kind"])]
    if args.json:
        print(json.dumps({"findings": found}, indent=2))
        return 0
    width = max(len(f["id"]) for f in found)
    print(f"{'id'.ljust(width)}  {'kind'.ljust(11)}  spec  taken by")
    for finding in found:
        kind = (
            ("required" if finding["required"] else "informative")
            if finding["kind"] == "assumption"
            else "fidelity"
        )
        print(
            f"{finding['id'].ljust(width)}  {kind.ljust(11)}  {finding['spec_section'].ljust(4)}  "
            + ", ".join(finding["takes"])
        )
    print(
        f"{len(found)} finding(s); `codex-probe findings --json` adds each one's scenario and "
        "statement"
    )
    return 0
