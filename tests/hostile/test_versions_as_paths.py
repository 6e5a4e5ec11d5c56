"""A version is a name in the cache and in a history's folder: it is validated before any
path is built from it, so no version reaches a binary or writes a file outside its folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codex_probe.cli.main import main
from codex_probe.harness.codex.install import installed
from codex_probe.harness.codex.versions import InvalidVersionError, checked_version
from codex_probe.harness.files import UnsafePathError, inside
from tests.cli import codex_probe

USAGE_ERROR = 2
HOSTILE_VERSIONS = ["../../../evil", "0.1.0/../../x", "¹.².³", "9" * 10_000, "", "0.1", ".."]


def plant_evil_codex(tmp_path: Path) -> tuple[Path, Path]:
    """A cache at x/cache and, beside x/, a folder that looks like an install of a codex
    that leaves a mark when it runs; the cache and the mark."""
    cache = tmp_path / "x" / "cache"
    (cache / "codex").mkdir(parents=True)
    mark = tmp_path / "executed"
    evil = tmp_path / "evil"
    binary = evil / "node_modules" / ".bin" / "codex"
    binary.parent.mkdir(parents=True)
    binary.write_text(f"#!/bin/sh\ntouch {mark}\necho codex-cli 0.171.0\n")
    binary.chmod(0o755)
    (evil / "installed.json").write_text('{"name": "evil"}\n')
    return cache, mark


def test_smoke_with_a_version_leading_out_of_the_cache_runs_nothing_and_is_a_usage_error(
    tmp_path: Path,
) -> None:
    cache, mark = plant_evil_codex(tmp_path)
    env = {**os.environ, "CODEX_PROBE_CACHE": str(cache)}
    done = codex_probe("smoke", "--codex", "../../../evil", "--out", str(tmp_path), env=env)
    assert not mark.exists(), "the binary outside the cache ran"
    assert done.returncode == USAGE_ERROR, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert "not a codex-cli version" in done.stderr


def test_the_cache_lookup_itself_refuses_a_version_that_is_not_one(tmp_path: Path) -> None:
    cache, mark = plant_evil_codex(tmp_path)
    with pytest.raises(InvalidVersionError, match="not a codex-cli version"):
        installed("../../../evil", cache)
    assert not mark.exists()


@pytest.mark.parametrize("version", HOSTILE_VERSIONS, ids=lambda v: v[:20] or "empty")
def test_a_hostile_version_is_refused_in_one_short_line(version: str) -> None:
    with pytest.raises(InvalidVersionError) as refused:
        checked_version(version)
    assert len(str(refused.value)) < 200
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("version", ["0.171.0", "0.121.0-alpha.1", "0.171.0-linux-x64"])
def test_published_version_forms_pass_the_check(version: str) -> None:
    assert checked_version(version) == version


@pytest.mark.parametrize(
    "command",
    [
        ["install", "VERSION"],
        ["schema", "VERSION"],
        ["validate", "VERSION", "/dev/null"],
        ["smoke", "--codex", "VERSION"],
        ["probe", "--codex", "VERSION"],
        ["learn", "VERSION"],
        ["repro", "start-applies-instructions", "--codex", "VERSION"],
        ["watch", "--codex", "VERSION"],
        ["bisect", "--good", "VERSION", "--bad", "0.171.0"],
        ["history", "--from", "VERSION", "--to", "0.171.0"],
        ["diff", "VERSION", "0.171.0"],
        ["drive", "--codex", "VERSION", "--message", "hi"],
        ["report", "--codex", "VERSION"],
        ["gate", "--codex", "VERSION"],
        ["can-i-upgrade", "--from", "VERSION", "--to", "0.171.0"],
        ["schema-diff", "VERSION", "0.171.0"],
    ],
    ids=lambda command: command[0],
)
@pytest.mark.parametrize("version", ["../../../evil", "¹.².³", "9" * 10_000])
def test_every_command_taking_a_version_refuses_a_hostile_one_as_a_usage_error(
    command: list[str],
    version: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CODEX_PROBE_CACHE", str(tmp_path / "cache"))
    words = [version if word == "VERSION" else word for word in command]
    try:
        code = main(words)
    except SystemExit as exited:  # argparse's usage error
        code = exited.code  # type: ignore[assignment]
    captured = capsys.readouterr()
    assert code == USAGE_ERROR, captured.err[-2000:]
    assert len(captured.err.splitlines()) == 1, captured.err[-2000:]
    assert "not a codex-cli version" in captured.err
    assert len(captured.err) < 400
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["..", ".", "", "a/b", "../x", "/etc", "a\\b", "a\0b"])
def test_a_name_from_data_that_leaves_its_folder_is_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(UnsafePathError):
        inside(tmp_path, name)


def test_plain_names_from_data_stay_inside_their_folder(tmp_path: Path) -> None:
    assert inside(tmp_path, "releases", "0.171.0.html") == tmp_path / "releases" / "0.171.0.html"
