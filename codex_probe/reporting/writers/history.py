"""What a history (`codex-probe history`, and `can-i-upgrade` filling a history's gaps)
writes of one release besides its record in history.json (probes/releases/sweep.py:
`HistoryRecord`): in the release's folder its bundles, its verdict.json, and its surface
beside the history's others."""

from __future__ import annotations

from pathlib import Path

from codex_probe.probes.releases.history import surface_path
from codex_probe.probes.runner.events import Writer
from codex_probe.probes.runner.selection import Selection
from codex_probe.reporting.writers.bundles import BundleWriter
from codex_probe.reporting.writers.surface import SurfaceWriter
from codex_probe.reporting.writers.verdict import VerdictWriter


def release_writers(out: Path, version: str, folder: Path) -> list[Writer]:
    """The writers of `version`'s folder of the history in `out`. A bundle's run command
    names no machine's binary: a history's folders are published."""
    asked = [f"{version}:{finding}" for finding in Selection.of(None).finding_ids]
    return [
        BundleWriter(folder, name_binary=False),
        VerdictWriter(folder / "verdict.json", asked, facts={}),
        SurfaceWriter(out / surface_path(version)),
    ]
