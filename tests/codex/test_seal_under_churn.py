"""A sealed launch under a `.git` while the host changes the folder it rebuilds: other runs
make and remove their homes beside ours between the seal's listing and its mounts.

Each race is made to happen every time: the helper runs with `os.listdir` or `os.stat`
wrapped so that the folder changes at that very moment (in the helper's own process).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codex_probe.harness.codex import seal

DEADLINE_S = 30.0
# Runs the seal helper (argv after the code) with the folder changed by `when`:
#   listed-then-gone NAME: the listing names NAME, which is then gone (never looked at);
#   gone-after-look NAME: NAME is removed right after the helper looked at it;
#   file-after-look NAME: NAME, a folder when looked at, is a file by the time it is mounted.
HELPER = """
import os, shutil, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import seal
when, name = sys.argv[2], sys.argv[3]
real_listdir, real_stat = os.listdir, os.stat
changed = []
def listdir(fd):
    names = real_listdir(fd)
    if when == "listed-then-gone":
        names.append(name)
    return names
def stat(path, *args, **kwargs):
    found = real_stat(path, *args, **kwargs)
    if path == name and "dir_fd" in kwargs and when != "listed-then-gone" and not changed:
        changed.append(path)
        # The covered folder, by the helper's own descriptor: the path shows the tmpfs now.
        covered = kwargs["dir_fd"]
        shutil.rmtree(name, dir_fd=covered)
        if when == "file-after-look":
            made = os.open(name, os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=covered)
            os.write(made, b"now a file\\n")
            os.close(made)
    return found
os.listdir, os.stat = listdir, stat
sys.exit(seal._helper_main(sys.argv[4:]))
"""


@pytest.fixture
def sealing_here() -> None:
    support = seal.namespace_support()
    if not support.available:
        pytest.skip(f"this host cannot seal: {support.how}")


@pytest.fixture
def busy_repo(tmp_path: Path) -> Path:
    """tmp/repo/{.git, stays/, changes/, work/}: the work dir beside folders that change."""
    repo = tmp_path / "repo"
    for folder in (".git", "stays", "changes", "work"):
        (repo / folder).mkdir(parents=True)
    (repo / "stays" / "kept").write_text("the host's file\n")
    return repo


def sealed_run_while(when: str, name: str, repo: Path) -> subprocess.CompletedProcess[str]:
    """Run `ls -A ..` sealed in repo/work, the helper changing `name` as `when` says."""
    work = repo / "work"
    helper_args = [str(work), "--hide", str(repo), ".git", "--", "sh", "-c", "ls -AF ..; pwd"]
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", HELPER, seal.__file__, when, name, *helper_args],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
        check=False,
    )


def test_a_sealed_launch_leaves_out_an_entry_removed_between_the_listing_and_its_mount(
    sealing_here: None, busy_repo: Path
) -> None:
    done = sealed_run_while("listed-then-gone", "codex-probe-gone", busy_repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["changes/", "stays/", "work/", str(busy_repo / "work")]


def test_a_sealed_launch_leaves_out_an_entry_removed_right_after_it_was_looked_at(
    sealing_here: None, busy_repo: Path
) -> None:
    done = sealed_run_while("gone-after-look", "changes", busy_repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["stays/", "work/", str(busy_repo / "work")]


def test_a_sealed_launch_shows_an_entry_replaced_by_another_kind_as_what_it_became(
    sealing_here: None, busy_repo: Path
) -> None:
    done = sealed_run_while("file-after-look", "changes", busy_repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["changes", "stays/", "work/", str(busy_repo / "work")]
    assert (busy_repo / "changes").read_text() == "now a file\n"
