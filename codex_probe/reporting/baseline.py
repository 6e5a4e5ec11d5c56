"""The probe gate's baseline: changes we know about and accept, per codex version, with a reason.

A TOML file in the format both gates read (rig/baseline.py), one `[[expected]]` table
per accepted finding:

    [[expected]]
    codex = "0.171.0"
    id = "an-assumption-id"      # the assumption
    verdict = "changed"          # optional: "changed" (default) or "broken"
    reason = "0.171.0 applies new instructions on a cold resume; the dispatcher clears ..."

An entry must keep matching: when the probe no longer reports that verdict (the
assumption holds again, or it is absent), the entry is stale and fails the gate, so
an old excuse cannot hide a new state.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codex_probe.rig.baseline import GateKeys, load_entries

ACCEPTABLE_VERDICTS = ("changed", "broken", "unsupported")
KEYS = GateKeys(defaults={"verdict": "changed"}, choices={"verdict": ACCEPTABLE_VERDICTS})


@dataclass(frozen=True)
class AcceptedChange:
    codex: str
    assumption: str
    verdict: str
    reason: str


@dataclass(frozen=True)
class AcceptedChanges:
    entries: tuple[AcceptedChange, ...] = ()

    def for_version(self, version: str) -> dict[str, AcceptedChange]:
        return {e.assumption: e for e in self.entries if e.codex == version}


def load_accepted_changes(path: Path) -> AcceptedChanges:
    """The baseline file `path` (a BaselineError names the file and the entry)."""
    return AcceptedChanges(
        tuple(
            AcceptedChange(entry.codex, entry.id, entry.values["verdict"], entry.reason)
            for entry in load_entries(path, KEYS)
        )
    )
