"""The pinned Allure CLI in the cache: installed once, never half, never another version."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from codex_probe.harness.codex.npm import NpmError
from codex_probe.reporting import allure_install
from codex_probe.reporting.allure_install import (
    ALLURE_VERSION,
    AllureInstallError,
    install_allure,
    installed_allure,
)


def fake_npm_install(version_written: str) -> object:
    """An `npm install --prefix P allure@V` that leaves the given version in P."""

    def run_npm(args: list[str], **kwargs: object) -> str:
        prefix = Path(args[args.index("--prefix") + 1])
        package = prefix / "node_modules" / "allure"
        package.mkdir(parents=True)
        (package / "package.json").write_text(json.dumps({"version": version_written}))
        (prefix / "node_modules" / ".bin").mkdir()
        (prefix / "node_modules" / ".bin" / "allure").write_text("#!/bin/sh\n")
        return ""

    return run_npm


def test_the_pinned_version_is_one_exact_release() -> None:
    assert re.fullmatch(r"3\.\d+\.\d+", ALLURE_VERSION)


def test_an_install_appears_whole_in_its_version_folder_and_is_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(allure_install, "run_npm", fake_npm_install(ALLURE_VERSION))
    first = install_allure(root=tmp_path)
    assert first.root == tmp_path / "allure" / ALLURE_VERSION
    assert first.binary.is_file()

    def no_npm(*args: object, **kwargs: object) -> str:
        raise AssertionError("npm must not run for a cached Allure")

    monkeypatch.setattr(allure_install, "run_npm", no_npm)
    assert install_allure(root=tmp_path) == first


def test_npm_leaving_another_version_is_an_error_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(allure_install, "run_npm", fake_npm_install("3.0.0-beta.13"))
    with pytest.raises(AllureInstallError, match=r"installed allure '3\.0\.0-beta\.13'"):
        install_allure(root=tmp_path)
    assert installed_allure(root=tmp_path) is None
    assert [p.name for p in (tmp_path / "allure").iterdir()] == [f".{ALLURE_VERSION}.lock"]


def test_a_failed_npm_install_leaves_no_partial_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(args: list[str], **kwargs: object) -> str:
        prefix = Path(args[args.index("--prefix") + 1])
        (prefix / "node_modules").mkdir()
        raise NpmError("`npm install` failed (exit 1): ETIMEDOUT")

    monkeypatch.setattr(allure_install, "run_npm", failing)
    with pytest.raises(NpmError, match="ETIMEDOUT"):
        install_allure(root=tmp_path)
    assert not list((tmp_path / "allure").glob(f".{ALLURE_VERSION}.partial-*"))
    assert not (tmp_path / "allure" / ALLURE_VERSION).exists()
