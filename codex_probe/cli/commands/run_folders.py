"""Where runs write, and where the commands that read a run look: one layout for all.

    reports/VERSION/            probe --codex VERSION: verdict.json, allure-results/,
                                summary.md, html/ (report), what gate reads
    reports/V1+V2/              the same for one run over several versions
    reports/history/            history
    reports/learned/            learn
    reports/drive/, reports/smoke/   drive, smoke

A run's folder is named by its versions, as given, in order: probe, report and gate
given the same --codex list meet in the same folder; --out (--verdict for gate) names
another.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION

REPORTS = Path("reports")
HISTORY = REPORTS / "history"
LEARNED = REPORTS / "learned"


def run_folder(versions: Sequence[str]) -> Path:
    """The folder of a run over `versions` (default: the default codex-cli)."""
    named = list(dict.fromkeys(versions)) or [DEFAULT_CODEX_VERSION]
    return REPORTS / "+".join(named)
