"""An install a running process uses is never removed: not by `cache prune`, not by the
install budget of another run; the kernel lets go of it when that process ends, even by
kill -9. Two real processes share a temporary cache."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_probe.harness.codex.install import installed
from codex_probe.harness.codex.installs import Removal, list_installs, remove_install, try_remove
from tests.fake_installs import DAY, NOW, fake_install

REPO = Path(__file__).resolve().parents[2]
DEADLINE_S = 30.0
# Takes the install as a probe does, says so, then runs until its stdin ends or it is killed.
USER = (
    "import sys\n"
    "from codex_probe.harness.codex.install import installed\n"
    "assert installed(sys.argv[1]) is not None\n"
    "print('using', flush=True)\n"
    "sys.stdin.read()\n"
)


def cache_env(cache: Path) -> dict[str, str]:
    return {**os.environ, "CODEX_PROBE_CACHE": str(cache), "PYTHONPATH": str(REPO)}


def line_within(process: subprocess.Popen[str], seconds: float) -> str:
    """The next line `process` prints, waiting at most `seconds` for it."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout=seconds):
            raise AssertionError(f"no line from {process.args!r} within {seconds:.0f}s")
    return process.stdout.readline()


@pytest.fixture
def user_of_0_1_0(install_cache: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process that has taken the install of 0.1.0 for use and runs on."""
    fake_install(install_cache, "0.1.0", last_used=NOW - 9 * DAY)
    user = subprocess.Popen(
        [sys.executable, "-c", USER, "0.1.0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=cache_env(install_cache),
        cwd=REPO,
    )
    try:
        assert line_within(user, DEADLINE_S) == "using\n"
        yield user
    finally:
        user.kill()
        user.wait(timeout=DEADLINE_S)
        assert user.stdin is not None and user.stdout is not None
        user.stdin.close()
        user.stdout.close()


def cache_prune(cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codex_probe.cli", "cache", "prune", *args],
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
        check=False,
        cwd=REPO,
        env=cache_env(cache),
    )


def test_cache_prune_keeps_an_install_another_process_is_using_and_says_so(
    install_cache: Path, user_of_0_1_0: subprocess.Popen[str]
) -> None:
    fake_install(install_cache, "0.2.0", last_used=NOW - 1 * DAY)
    done = cache_prune(install_cache, "--keep-installs", "0")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "removed 0.2.0  1.0 kB",
        "kept 0.1.0: in use by a running process",
        "freed 1.0 kB (1 install removed)",
    ]
    assert [install.version for install in list_installs()] == ["0.1.0"]
    assert (install_cache / "codex" / "0.1.0" / "node_modules" / ".bin" / "codex").is_file()


def test_cache_prune_json_lists_an_install_in_use_as_kept_with_why(
    install_cache: Path, user_of_0_1_0: subprocess.Popen[str]
) -> None:
    done = cache_prune(install_cache, "--keep-installs", "0", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["removed"] == []
    assert [(kept["version"], kept["why"]) for kept in report["kept"]] == [
        ("0.1.0", "in use by a running process")
    ]


def test_the_removal_an_install_budget_uses_skips_an_install_another_process_uses(
    install_cache: Path, user_of_0_1_0: subprocess.Popen[str]
) -> None:
    assert try_remove("0.1.0") is Removal.IN_USE
    assert remove_install("0.1.0") is False
    assert [install.version for install in list_installs()] == ["0.1.0"]


def test_an_install_is_free_to_remove_once_the_process_using_it_is_killed(
    install_cache: Path, user_of_0_1_0: subprocess.Popen[str]
) -> None:
    user_of_0_1_0.send_signal(signal.SIGKILL)
    user_of_0_1_0.wait(timeout=DEADLINE_S)
    done = cache_prune(install_cache, "--keep-installs", "0")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "removed 0.1.0  1.0 kB"
    assert list_installs() == []


def test_a_process_may_remove_an_install_it_used_itself(install_cache: Path) -> None:
    # The budget of a history run removes installs the run itself is done with.
    fake_install(install_cache, "0.1.0")
    assert installed("0.1.0") is not None
    assert try_remove("0.1.0") is Removal.REMOVED
    assert list_installs() == []
