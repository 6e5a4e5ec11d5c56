"""The plugin costs a project that does not use it nothing: pytest loads it with every run
of an environment with codex-probe installed, so it must not bring the rig in with it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance.runner import plugin_args

# pytest in a child process, then the names of every module it had imported by the end.
PYTEST_THEN_MODULES = """
import json, sys
import pytest
status = pytest.main(sys.argv[1:])
print(json.dumps({"status": int(status), "modules": sorted(sys.modules)}))
"""
HEAVY = {"aiohttp", "jsonschema"}
PLUGIN = "codex_probe.conformance.plugin"


def pytest_in(folder: Path, *args: str) -> tuple[int, set[str]]:
    """Exit status and imported modules of `pytest ARGS` run in `folder`."""
    home = folder.parent / "home"
    home.mkdir(exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-c", PYTEST_THEN_MODULES, *plugin_args(), *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home)},
    )
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert last.startswith("{"), done.stdout + done.stderr
    seen = json.loads(last)
    return seen["status"], set(seen["modules"])


def top_level(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    empty = tmp_path / "project"
    empty.mkdir()
    return empty


def test_pytest_version_in_an_empty_folder_imports_neither_aiohttp_nor_jsonschema(
    folder: Path,
) -> None:
    status, modules = pytest_in(folder, "--version")
    assert status == 0
    assert HEAVY.isdisjoint(top_level(modules)), HEAVY & top_level(modules)


def test_a_run_whose_tests_use_no_codex_fixture_loads_the_plugin_without_the_rig(
    folder: Path,
) -> None:
    (folder / "test_plain.py").write_text("def test_plain():\n    pass\n", encoding="utf-8")
    status, modules = pytest_in(folder)
    assert status == 0
    assert PLUGIN in modules  # loaded, and so its options and fixtures offered
    assert HEAVY.isdisjoint(top_level(modules)), HEAVY & top_level(modules)
    assert not {name for name in modules if name.startswith("codex_probe.rig.")} - {
        "codex_probe.rig.defaults"
    }


def test_a_test_asking_for_a_codex_fixture_gets_it_with_what_it_needs(folder: Path) -> None:
    (folder / "test_holds.py").write_text(
        "def test_holds(codex_holds):\n    assert type(codex_holds).__name__ == 'Holds'\n",
        encoding="utf-8",
    )
    status, modules = pytest_in(folder)
    assert status == 0
    assert {"codex_probe.rig.wiretap", "aiohttp"} <= modules
