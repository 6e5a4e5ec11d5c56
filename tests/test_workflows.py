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
    '"${inputs[@]}"': "previous/history.json shards/1/history.json",
    '"${upgrade_args[@]}"': "--from 0.171.0 --to 0.172.0 --history reports/history",
    "$DEFAULT": "0.171.0",
    "$TARGET": "0.172.0",
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


SCRIPTS = sorted((Path(__file__).parents[1] / ".github" / "scripts").glob("*.sh"))
PREVIOUS_HISTORY = Path(__file__).parents[1] / ".github" / "scripts" / "previous-history.sh"
# A stand-in for the GitHub CLI: the completed runs, newest first (as the script's --jq
# filter prints them), and each run's artifacts as folders of $ARTIFACTS/RUN/NAME.
FAKE_GH = """#!/bin/bash
if [ "$1 $2" = "run list" ]; then printf '%s\\n' $RUNS; exit 0; fi
run=$3; shift 3
while [ $# -gt 0 ]; do
  case $1 in --name) name=$2; shift 2;; --dir) dir=$2; shift 2;; *) shift;; esac
done
[ -d "$ARTIFACTS/$run/$name" ] || exit 1
cp -r "$ARTIFACTS/$run/$name/." "$dir/"
"""


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_every_script_the_workflows_run_is_valid_bash(path: Path) -> None:
    checked = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stderr


def previous_history(tmp_path: Path, runs: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "bin").mkdir(exist_ok=True)
    (tmp_path / "bin" / "gh").write_text(FAKE_GH)
    (tmp_path / "bin" / "gh").chmod(0o755)
    env = {
        "PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin",
        "RUNS": runs,
        "ARTIFACTS": str(tmp_path / "artifacts"),
        "GITHUB_REPOSITORY": "owner/repo",
        "GH_TOKEN": "x",
    }
    return subprocess.run(
        ["bash", str(PREVIOUS_HISTORY), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_the_previous_history_is_the_newest_run_whose_artifact_is_still_there(
    tmp_path: Path,
) -> None:
    kept = tmp_path / "artifacts" / "100" / "codex-probe-history"
    (kept / "releases" / "0.161.0").mkdir(parents=True)
    (kept / "history.json").write_text('{"releases": {"0.161.0": {}}}')
    done = previous_history(tmp_path, "101 100")  # 101's artifact has expired
    assert done.returncode == 0, done.stderr
    assert done.stdout == "previous history: run 100, 1 release(s) recorded\n"
    assert (tmp_path / "out" / "releases" / "0.161.0").is_dir()


def test_without_a_previous_history_the_folder_stays_empty_and_everything_is_probed(
    tmp_path: Path,
) -> None:
    done = previous_history(tmp_path, "101")
    assert done.returncode == 0, done.stderr
    assert "none to be had; every release of the range is probed" in done.stdout
    assert list((tmp_path / "out").iterdir()) == []
