"""A long install shows progress: a bar on a terminal, a start and an end line elsewhere."""

from __future__ import annotations

import io
import os
import pty
from pathlib import Path

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.progress import InstallProgress
from tests.cli import codex_probe


def read_all(leader: int) -> str:
    """Everything written to the terminal, once its other end is closed."""
    pieces = []
    while True:
        try:
            piece = os.read(leader, 65536)
        except OSError:  # EIO: the other end is closed and nothing is left
            break
        if not piece:
            break
        pieces.append(piece)
    os.close(leader)
    return b"".join(pieces).decode()


def test_on_a_terminal_the_bar_counts_the_bytes_npm_has_written(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    with (
        os.fdopen(follower, "w") as terminal,
        InstallProgress("codex-cli 9.9.9", tmp_path, terminal) as shown,
    ):
        (tmp_path / "part").write_bytes(b"x" * 3_000_000)
        shown.update()
        terminal.flush()
    drawn = read_all(leader)
    assert "installing codex-cli 9.9.9" in drawn
    assert "2.86MB" in drawn or "2.86M" in drawn, drawn


def test_off_a_terminal_one_line_starts_the_install_and_one_ends_it(tmp_path: Path) -> None:
    log = io.StringIO()
    with InstallProgress("codex-cli 9.9.9", tmp_path, log) as shown:
        (tmp_path / "part").write_bytes(b"x" * 5_000_000)
        shown.update()
    lines = log.getvalue().splitlines()
    assert lines[0] == "installing codex-cli 9.9.9 (once, into the cache) ..."
    assert lines[1].startswith("installed codex-cli 9.9.9: 5 MB in ")
    assert len(lines) == 2


def test_a_failed_install_leaves_no_installed_line(tmp_path: Path) -> None:
    log = io.StringIO()
    with pytest.raises(RuntimeError), InstallProgress("codex-cli 9.9.9", tmp_path, log):
        raise RuntimeError("npm failed")
    assert "installed" not in log.getvalue().replace("installing", "")


def test_installing_a_release_into_an_empty_cache_says_so_on_stderr(
    install_cache: Path, default_codex: Installation
) -> None:
    done = codex_probe(
        "install",
        "--codex",
        default_codex.version,
        env={**os.environ, "CODEX_PROBE_CACHE": str(install_cache)},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert (
        f"installing codex-cli {default_codex.version} from npm (once, into the cache) ..." in lines
    )
    assert any(
        line.startswith(f"installed codex-cli {default_codex.version} from npm: ") for line in lines
    )
    again = codex_probe(
        "install",
        "--codex",
        default_codex.version,
        env={**os.environ, "CODEX_PROBE_CACHE": str(install_cache)},
    )
    assert again.stderr == ""  # a cached release installs nothing and says nothing
