"""reproduce.py is the script's modules joined into one file of standard-library Python."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from codex_probe.probes.domain import reading
from codex_probe.probes.releases.repro import assemble
from codex_probe.probes.releases.repro.assemble import AssemblyError, script_text


def test_the_script_imports_the_standard_library_only() -> None:
    tree = ast.parse(script_text())
    imported = [
        name.split(".")[0]
        for node in ast.walk(tree)
        for name in (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
    ]
    assert imported, "the script imports nothing"
    assert [name for name in imported if name not in sys.stdlib_module_names] == []


def test_the_script_runs_without_site_packages_from_any_folder(tmp_path: Path) -> None:
    script = tmp_path / "reproduce.py"
    script.write_text(script_text())
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(script), "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "--codex" in done.stdout


def test_the_script_opens_with_what_it_does_and_holds_every_module(tmp_path: Path) -> None:
    text = script_text()
    assert text.startswith('#!/usr/bin/env python3\n"""Reproduce one codex-probe finding')
    for module in assemble.MODULES:
        assert f"# ----- {module}.py " in text


def test_two_modules_defining_one_name_cannot_be_joined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for module in assemble.MODULES:
        (tmp_path / f"{module}.py").write_text(
            f'"""{module}."""\n\nfrom __future__ import annotations\n'
        )
    (tmp_path / "outcomes.py").write_text('"""o."""\n\nLIMIT = 1\n')
    (tmp_path / "main.py").write_text('"""m."""\n\nLIMIT = 2\n')
    monkeypatch.setattr(assemble, "SCRIPT_DIR", tmp_path)
    script_text.cache_clear()
    try:
        with pytest.raises(AssemblyError, match="LIMIT is defined in outcomes and main"):
            script_text()
    finally:
        script_text.cache_clear()


def test_a_module_importing_a_package_cannot_be_joined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for module in assemble.MODULES:
        (tmp_path / f"{module}.py").write_text(f'"""{module}."""\n')
    (tmp_path / "replay.py").write_text('"""r."""\n\nimport yaml\n')
    monkeypatch.setattr(assemble, "SCRIPT_DIR", tmp_path)
    script_text.cache_clear()
    try:
        with pytest.raises(AssemblyError, match=r"replay\.py imports yaml"):
            script_text()
    finally:
        script_text.cache_clear()


def test_the_reading_a_bundle_carries_verbatim_imports_the_standard_library_only() -> None:
    tree = ast.parse(Path(reading.__file__).read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    }
    assert imported - {"__future__"} <= set(sys.stdlib_module_names), imported
