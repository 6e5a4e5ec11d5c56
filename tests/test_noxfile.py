"""What a nox session prints: its own lines, not nox's search for a uv no session uses."""

from __future__ import annotations

import functools
import os
import runpy
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]


def drive(
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
    done = drive("report", "-h", cwd=REPOSITORY, bin_dir=Path(sys.executable).parent)
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
    (tmp_path / "codex_probe" / "harness" / "codex").mkdir(parents=True)
    for name in ("noxfile.py", "codex_probe/harness/codex/versions.py"):
        (tmp_path / name).write_text((REPOSITORY / name).read_text())
    stub = tmp_path / "bin" / "codex-probe"
    stub.parent.mkdir()
    stub.write_text(STUB)
    stub.chmod(0o755)
    done = drive("probe", "9.9.9", cwd=tmp_path, bin_dir=stub.parent)
    assert done.returncode != 0, done.stderr
    assert "nox > codex-probe report --codex 9.9.9" in done.stderr
    assert "no verdict for 1 finding(s) (broken: 9.9.9:start-applies-instructions" in done.stderr


def test_a_test_run_that_collects_nothing_fails_the_tests_session_and_says_why(
    tmp_path: Path,
) -> None:
    (tmp_path / "codex_probe" / "harness" / "codex").mkdir(parents=True)
    for name in ("noxfile.py", "codex_probe/harness/codex/versions.py"):
        (tmp_path / name).write_text((REPOSITORY / name).read_text())
    stub = tmp_path / "bin" / "pytest"
    stub.parent.mkdir()
    stub.write_text("#!/bin/sh\necho 'no tests ran'\nexit 5\n")  # pytest, finding no test
    stub.chmod(0o755)
    done = drive("tests", cwd=tmp_path, bin_dir=stub.parent)
    assert done.returncode != 0, done.stderr
    assert "pytest collected no tests: a run that tests nothing is no pass" in done.stderr


class SessionFailed(Exception):
    pass


class RecordingSession:
    """What ensure_browser asks of a nox session, recorded."""

    def __init__(self) -> None:
        self.said: list[str] = []

    def log(self, text: str) -> None:
        self.said.append(text)

    def warn(self, text: str) -> None:
        self.said.append(text)

    def error(self, text: str) -> None:
        raise SessionFailed(text)


# apt-get as root on a machine without chromium: a hundred lines of progress per call,
# and with APT_FAILS set, an install that fails.
APT_GET = """#!/bin/sh
echo "$*" >> "$APT_CALLS"
i=0
while [ $i -lt 100 ]; do echo "Unpacking package-$i ..."; i=$((i + 1)); done
if [ -n "$APT_FAILS" ] && [ "$1" = install ]; then
    echo "E: Unable to locate package chromium" >&2
    exit 100
fi
"""


@pytest.fixture
def apt_get_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH holding only a stand-in apt-get (so no browser), as root; its calls' file."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "apt-get").write_text(APT_GET)
    (bin_dir / "apt-get").chmod(0o755)
    calls = tmp_path / "apt-calls.txt"
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("APT_CALLS", str(calls))
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    return calls


@functools.cache
def loaded_noxfile() -> dict[str, Any]:
    """The noxfile's names, loaded once: nox refuses a session registered twice."""
    return runpy.run_path(str(REPOSITORY / "noxfile.py"))


def ensure_browser() -> Callable[[RecordingSession], None]:
    """The noxfile's ensure_browser."""
    function: Callable[[RecordingSession], None] = loaded_noxfile()["ensure_browser"]
    return function


def test_the_browser_install_says_one_line_and_nothing_of_apt_gets_output(
    apt_get_only: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    session = RecordingSession()
    ensure_browser()(session)
    assert len(session.said) == 1 and "installing Debian's chromium" in session.said[0]
    assert apt_get_only.read_text().splitlines() == [
        "update -qq",
        "install -y -qq --no-install-recommends chromium",
    ]
    printed = capfd.readouterr()
    assert printed.out + printed.err == ""


def test_a_failed_browser_install_shows_apt_gets_output_and_fails_the_session(
    apt_get_only: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("APT_FAILS", "1")
    with pytest.raises(SessionFailed, match="failed with exit code 100"):
        ensure_browser()(RecordingSession())
    printed = capfd.readouterr().err
    assert "E: Unable to locate package chromium" in printed
    assert "Unpacking package-99 ..." in printed


def test_the_chaos_campaign_runs_only_when_asked_for() -> None:
    # It takes minutes and signals whole process trees: never part of `./nox -s tests`,
    # of a bare `./nox`, or of what pytest collects.
    noxfile = loaded_noxfile()
    assert "chaos" in noxfile
    assert "chaos" not in noxfile["nox"].options.sessions
    pytest_options = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["tool"]["pytest"]
    assert not any(path.startswith("tools") for path in pytest_options["ini_options"]["testpaths"])


def test_the_noxfile_reads_the_release_matrix_with_the_standard_library_alone() -> None:
    # nox's own venv holds nox and nothing of ours: versions.py must import nothing else
    # (a msgspec import there broke every session of a fresh clone). -S: no site-packages.
    versions = Path(__file__).resolve().parents[1] / "codex_probe/harness/codex/versions.py"
    done = subprocess.run(
        [sys.executable, "-S", "-c", f"import runpy; runpy.run_path({str(versions)!r})"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
