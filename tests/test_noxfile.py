"""What a nox session prints: its own lines, not nox's search for a uv no session uses."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
import tomllib
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


def run_session(
    session: str, *posargs: str, cwd: Path, bin_dir: Path
) -> subprocess.CompletedProcess[str]:
    """`nox -s SESSION -- POSARGS` on this interpreter, installing nothing, with `bin_dir`
    first on PATH (where the session finds codex-probe)."""
    return subprocess.run(
        [sys.executable, "-m", "nox", "--no-venv", "--no-install", "-s", session, "--", *posargs],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"},
    )


def test_a_session_does_not_say_that_uv_is_missing() -> None:
    # --no-venv --no-install: the session runs on this interpreter (codex-probe is on its
    # PATH) with nothing installed, yet nox still looks for uv as it does for every session.
    done = run_session("report", "-h", cwd=REPOSITORY, bin_dir=Path(sys.executable).parent)
    assert done.returncode == 0, done.stderr
    assert "nox > Running session report" in done.stderr
    assert "uv binary not found" not in done.stderr + done.stdout


STUB = """#!/bin/sh
# codex-probe as a run that broke: probe writes a verdict with a broken finding, exit 3.
if [ "$1" = probe ]; then
    mkdir -p reports/9.9.9
    cat > reports/9.9.9/verdict.json <<'JSON'
{"versions": {"9.9.9": {"start-applies-instructions": {"verdict": "broken"}}},
 "complete": true, "missing": []}
JSON
    exit 3
fi
exit 0
"""


def test_the_main_job_fails_when_a_finding_is_broken_after_writing_the_report(
    tmp_path: Path,
) -> None:
    # A copy of the noxfile (and the versions it reads), so the session's folder is tmp_path.
    (tmp_path / "harness" / "codex").mkdir(parents=True)
    for name in ("noxfile.py", "harness/codex/versions.py"):
        (tmp_path / name).write_text((REPOSITORY / name).read_text())
    stub = tmp_path / "bin" / "codex-probe"
    stub.parent.mkdir()
    stub.write_text(STUB)
    stub.chmod(0o755)
    done = run_session("probe", "9.9.9", cwd=tmp_path, bin_dir=stub.parent)
    assert done.returncode != 0, done.stderr
    assert "nox > codex-probe report --codex 9.9.9" in done.stderr
    assert "no verdict for 1 finding(s) (broken: 9.9.9:start-applies-instructions" in done.stderr


def test_the_chaos_campaign_runs_only_when_asked_for() -> None:
    # It takes minutes and signals whole process trees: never part of `./nox -s tests`,
    # of a bare `./nox`, or of what pytest collects.
    noxfile = runpy.run_path(str(REPOSITORY / "noxfile.py"))
    assert "chaos" in noxfile
    assert "chaos" not in noxfile["nox"].options.sessions
    pytest_options = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["tool"]["pytest"]
    assert not any(path.startswith("tools") for path in pytest_options["ini_options"]["testpaths"])
