"""The probe gate's baseline: changes we know about and accept, per codex version, with a reason.

A TOML file in the format both gates read (rig/baseline.py), one `[[expected]]` table
per accepted change:

    [[expected]]
    codex = "0.171.0"
    id = "an-assumption-id"      # the assumption
    verdict = "changed"          # optional: "changed" (default) or "broken"
    reason = "0.171.0 applies new instructions on a cold resume; the dispatcher clears ..."

    [[expected]]
    codex = "0.172.0"
    kind = "surface"             # a change of the protocol surface (default: "finding")
    id = "answers errors resume thread/resume"   # its aspect and key, as diff names it
    reason = "thread/resume answers a new field; the driver reads none of it"

An entry must keep matching: when the probe no longer reports that verdict (the
assumption holds again, or it is absent), or the surface no longer differs at that key,
the entry is stale and fails the gate, so an old excuse cannot hide a new state.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codex_probe.rig.baseline import GateKeys, load_entries

ACCEPTABLE_VERDICTS = ("changed", "broken", "unsupported")
KINDS = ("finding", "surface")
KEYS = GateKeys(
    defaults={"verdict": "changed", "kind": "finding"},
    choices={"verdict": ACCEPTABLE_VERDICTS, "kind": KINDS},
)


@dataclass(frozen=True)
class AcceptedChange:
    codex: str
    assumption: str  # an assumption id, or a surface change's `ASPECT KEY`
    verdict: str
    reason: str
    kind: str = "finding"


@dataclass(frozen=True)
class AcceptedChanges:
    entries: tuple[AcceptedChange, ...] = ()

    def for_version(self, version: str) -> dict[str, AcceptedChange]:
        """The accepted findings of `version`, by assumption id."""
        return {e.assumption: e for e in self.entries if e.codex == version and e.kind == "finding"}

    def surface_for_version(self, version: str) -> dict[str, AcceptedChange]:
        """The accepted surface changes of `version`, by `ASPECT KEY`."""
        return {e.assumption: e for e in self.entries if e.codex == version and e.kind == "surface"}


def load_accepted_changes(path: Path) -> AcceptedChanges:
    """The baseline file `path` (a BaselineError names the file and the entry)."""
    return AcceptedChanges(
        tuple(
            AcceptedChange(
                entry.codex, entry.id, entry.values["verdict"], entry.reason, entry.values["kind"]
            )
            for entry in load_entries(path, KEYS)
        )
    )
