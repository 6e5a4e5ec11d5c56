"""Run pytest with the conformance plugin in a child process and read what each check did."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SUITES = ROOT / "codex_probe" / "conformance" / "suites"
CHILD_TIMEOUT_S = 420


def plugin_args() -> list[str]:
    """`-p codex_probe.conformance.plugin` unless the installed entry point loads it already."""
    plugin = "codex_probe.conformance.plugin"
    installed = any(ep.value == plugin for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", plugin]


@dataclass
class Run:
    returncode: int
    output: str
    results: dict[str, dict[str, Any]]  # check id -> its (single) result

    def outcome(self, check: str) -> str:
        return str(self.results[check]["outcome"]) if check in self.results else "not run"

    def message(self, check: str) -> str:
        return str(self.results.get(check, {}).get("message", ""))


def run_pytest(tmp_path: Path, *args: str, cwd: Path = ROOT) -> Run:
    """pytest in a child process with its own basetemp, results in a JSON Lines file."""
    results = tmp_path / "results.jsonl"
    command = [
        sys.executable,
        "-m",
        "pytest",
        *plugin_args(),
        "-p",
        "no:cacheprovider",
        f"--basetemp={tmp_path / 'basetemp'}",
        f"--codex-results={results}",
        *args,
    ]
    done = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, check=False
    )
    by_check: dict[str, dict[str, Any]] = {}
    if results.is_file():
        for line in results.read_text(encoding="utf-8").splitlines():
            result = json.loads(line)
            by_check[result["check"]] = result
    return Run(done.returncode, done.stdout + done.stderr, by_check)
