from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codex_probe.harness.codex import npm
from codex_probe.harness.codex.install import (
    Installation,
    UnknownVersionError,
    binary_version,
    install,
    installed,
    resolve_version,
)
from codex_probe.harness.codex.npm import NpmError

pytestmark = pytest.mark.real


def test_installed_default_version_reports_its_own_version(default_codex: Installation) -> None:
    assert binary_version(default_codex.binary) == default_codex.version


def test_second_install_of_a_cached_version_needs_no_npm_and_starts_no_process(
    default_codex: Installation,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_npm(*args: object, **kwargs: object) -> str:
        raise AssertionError("npm must not run for a cached version")

    def no_process(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a cached version must start no process: {args}")

    monkeypatch.setattr(npm, "run_npm", no_npm)
    monkeypatch.setattr(subprocess, "Popen", no_process)
    again = install(default_codex.version)
    assert again == default_codex


def test_unknown_version_is_an_error_naming_nearby_published_versions(tmp_path: Path) -> None:
    with pytest.raises(UnknownVersionError) as caught:
        install("9.9.9", root=tmp_path)
    message = str(caught.value)
    assert "9.9.9 is not published" in message and "\n" not in message
    assert len(caught.value.nearest) == 5
    assert all(v.count(".") == 2 for v in caught.value.nearest)
    assert not list((tmp_path / "codex").glob("9.9.9*"))


def test_missing_npm_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(NpmError, match="npm was not found on PATH"):
        install("0.171.0", root=tmp_path)


def test_an_install_interrupted_half_way_is_never_used_and_leaves_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(npm, "published_versions", lambda: ["0.171.0"])

    def interrupted(version: str, prefix: Path) -> None:
        (prefix / "node_modules" / ".bin").mkdir(parents=True)
        (prefix / "node_modules" / ".bin" / "codex").write_text("half")
        raise KeyboardInterrupt

    monkeypatch.setattr(npm, "install_package", interrupted)
    with pytest.raises(KeyboardInterrupt):
        install("0.171.0", root=tmp_path)
    assert installed("0.171.0", root=tmp_path) is None
    # Only the empty lock files: the install's, and the one that marks it in use.
    assert sorted(p.name for p in (tmp_path / "codex").iterdir()) == [
        ".0.171.0.in-use",
        ".0.171.0.lock",
    ]


def test_a_folder_without_its_completion_marker_is_not_an_installation(tmp_path: Path) -> None:
    half = tmp_path / "codex" / "0.171.0" / "node_modules" / ".bin"
    half.mkdir(parents=True)
    (half / "codex").write_text("#!/bin/sh\n")
    assert installed("0.171.0", root=tmp_path) is None


def test_two_processes_installing_the_same_version_at_once_both_get_one_installation(
    tmp_path: Path,
    default_codex: Installation,
) -> None:
    script = (
        "import json, sys; from pathlib import Path;"
        "from codex_probe.harness.codex.install import install;"
        "i = install(sys.argv[1], root=Path(sys.argv[2]));"
        "print(json.dumps({'root': str(i.root)}))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", script, default_codex.version, str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=400) for p in processes]
    assert [p.returncode for p in processes] == [0, 0], outputs
    roots = {json.loads(out)["root"] for out, _ in outputs}
    assert roots == {str(tmp_path / "codex" / default_codex.version)}
    assert not list((tmp_path / "codex").glob(f".{default_codex.version}.partial-*"))
    assert binary_version(Installation(default_codex.version, Path(roots.pop())).binary) == (
        default_codex.version
    )


def test_latest_resolves_to_a_concrete_published_version() -> None:
    resolved = resolve_version("latest")
    assert resolved.count(".") == 2 and resolved.replace(".", "").isdigit()
