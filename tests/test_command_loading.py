"""`codex-probe COMMAND` loads that command only: not the pytest, aiohttp and probe code
the other commands run, which took half a second before any command could start."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from codex_probe.cli.main import COMMAND_MODULES
from tests.cli import codex_probe

LOADED = """
import json, sys
from codex_probe.cli.main import main
status = main(sys.argv[1:])
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""


def loaded_by(tmp_path: Path, *words: str) -> tuple[int, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", LOADED, *words],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"CODEX_PROBE_CACHE": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"},
    )
    last = done.stdout.strip().splitlines()[-1]
    seen = json.loads(last)
    return seen["status"], seen["modules"]


def test_a_command_line_naming_one_command_loads_only_that_command(tmp_path: Path) -> None:
    status, modules = loaded_by(tmp_path, "cache", "list", "--json")
    assert status == 0
    assert set(COMMAND_MODULES) & set(modules) == {"codex_probe.cli.commands.cache"}
    heavy = {"pytest", "aiohttp", "jsonschema"}
    heavy |= {"codex_probe.probes.runner.release_run", "codex_probe.rig.wiretap"}
    assert heavy.isdisjoint(modules), heavy & set(modules)


def test_help_still_lists_every_command() -> None:
    done = codex_probe("--help", timeout=120)
    assert done.returncode == 0, done.stderr
    for command in ("install", "probe", "repro", "history", "gate", "schema-diff", "cache"):
        assert f"    {command} " in done.stdout or f"    {command}\n" in done.stdout, command
