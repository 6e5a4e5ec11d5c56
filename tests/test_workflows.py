"""The CI workflows: valid YAML and bash, and every codex-probe command in them parses.

GitHub Actions cannot run here, so this is what keeps the workflows from drifting away
from the command line: a renamed option fails this test, not the nightly job.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from codex_probe.cli.main import build_parser

WORKFLOWS = sorted((Path(__file__).parents[1] / ".github" / "workflows").glob("*.yml"))
EXPRESSION = re.compile(r"\$\{\{[^}]*\}\}")
# What the shell would put in each variable a workflow passes to codex-probe.
VALUES = {
    "${{ matrix.shard }}": "1",
    "${{ matrix.codex }}": "0.172.0",
    "${{ needs.versions.outputs.default }}": "0.171.0",
    '"${args[@]}"': "--codex 0.172.0 --verdict reports/0.172.0/verdict.json --no-run",
    "$SHARDS": "4",
    "$FROM": "0.120.0",
    "$TO": "latest",
    "$GOOD": "0.171.0",
    "$BAD": "0.172.0",
    "$id": "base-developer-placement",
    "$OUT": "reports/0.172.0",
    "$THIS": "0.172.0",
    "$BASE": "0.171.0",
}
ENDS = {"|", ">", ">>", "&&", "||", ";", "2>&1"}


def workflow(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(path.read_text())
    return loaded


def run_scripts(path: Path) -> list[tuple[str, str]]:
    return [
        (f"{job_name}/{step.get('name', step.get('uses'))}", step["run"])
        for job_name, job in workflow(path)["jobs"].items()
        for step in job["steps"]
        if "run" in step
    ]


def codex_probe_commands(script: str) -> list[str]:
    joined = script.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip().startswith("codex-probe ")]


def argv(command: str) -> list[str]:
    for variable, value in VALUES.items():
        command = command.replace(variable, value)
    assert "$" not in command, f"add the variable to VALUES: {command}"
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words: list[str] = []
    for word in lexer:
        if word in ENDS:
            break
        words.append(word)
    return words[1:]


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_every_job_a_job_needs_exists(path: Path) -> None:
    jobs = workflow(path)["jobs"]
    for name, job in jobs.items():
        needs = job.get("needs", [])
        for needed in [needs] if isinstance(needs, str) else needs:
            assert needed in jobs, f"{name} needs {needed}"


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_every_run_step_is_valid_bash(path: Path) -> None:
    for where, script in run_scripts(path):
        checked = subprocess.run(
            ["bash", "-n"],
            input=EXPRESSION.sub("x", script),
            capture_output=True,
            text=True,
            check=False,
        )
        assert checked.returncode == 0, f"{path.name} {where}: {checked.stderr}"


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_every_codex_probe_command_in_a_workflow_parses(path: Path) -> None:
    commands = [c for _, script in run_scripts(path) for c in codex_probe_commands(script)]
    assert commands, f"{path.name} runs no codex-probe command"
    for command in commands:
        try:
            build_parser().parse_args(argv(command))
        except SystemExit as error:
            pytest.fail(f"{path.name}: `{command}` does not parse (exit {error.code})")
