"""The package a user installs: a wheel that holds its data and runs outside the checkout.

Builds the wheel with PyPA's `build` (as a packager would), installs it into a fresh venv
in a temporary folder, and runs both console scripts from there, with that folder as the
working directory so nothing of the checkout is on the path.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from tests.once import made_once

ROOT = Path(__file__).resolve().parents[1]
INSTALL_TIMEOUT_S = 600

# Data the code opens at run time, by package.
PACKAGE_DATA = (
    "codex_probe/fake_appserver/profiles/0.171.0.json",
    "codex_probe/fake_appserver/profiles/wire-0.171.0.json",
    "codex_probe/fake_appserver/profiles/profile.schema.json",
    "codex_probe/harness/compiler/sources/agent.toml",
    "codex_probe/harness/compiler/sources/AGENTS.md",
    "codex_probe/py.typed",
    # The sources a reproduction bundle's reproduce.py is assembled from.
    "codex_probe/probes/releases/repro/script/main.py",
    # The published site's compare view, and the dataset's schema it ships.
    "codex_probe/reporting/site/compare.js",
    "codex_probe/reporting/site/dataset.schema.json",
    # The schemas of verdict.json, surface.json and history.json (docs/formats.md).
    "codex_probe/probes/schemas/verdict.schema.json",
    "codex_probe/probes/schemas/surface.schema.json",
    "codex_probe/probes/schemas/history.schema.json",
)


def run(command: list[str], cwd: Path, timeout: float = INSTALL_TIMEOUT_S) -> str:
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    done = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env, check=False
    )
    assert done.returncode == 0, f"{command}: exit {done.returncode}\n{done.stderr[-3000:]}"
    return done.stdout


def checkout_copy(target: Path) -> Path:
    """The tracked files of the checkout, copied: a build writes build/ beside its sources."""
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    for name in listed:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target / name, follow_symlinks=False)
    return target


def top_level_names(site_packages: Path) -> set[str]:
    """What an installed distribution put at the top of site-packages, ours or not."""
    return {path.name for path in site_packages.iterdir()}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built once for the run by PyPA's build from a copy of the checkout."""

    def build(folder: Path) -> None:
        sources = checkout_copy(folder / "sources")
        dist = folder / "dist"
        run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(sources)], folder)
        shutil.rmtree(sources)

    (built,) = (made_once(tmp_path_factory, "wheel", build) / "dist").glob("codex_probe-*.whl")
    return built


def fresh_venv(folder: Path) -> Path:
    """A new venv in `folder`; its bin/ folder."""
    venv.create(folder, with_pip=True)
    return folder / "bin"


def pip_install(bin_dir: Path, *what: str, cwd: Path) -> None:
    run([str(bin_dir / "pip"), "install", "-q", "--disable-pip-version-check", *what], cwd)


@pytest.mark.starts_early  # builds a wheel and a venv: about 14 s
def test_the_wheel_holds_its_data_and_its_commands_run_from_a_fresh_venv(
    wheel: Path, tmp_path: Path
) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert [path for path in PACKAGE_DATA if path not in names] == []
    assert {name.split("/")[0] for name in names} == {
        "codex_probe",
        f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info",
    }

    bin_dir = fresh_venv(tmp_path / "venv")
    (site_packages,) = (tmp_path / "venv" / "lib").glob("python3*/site-packages")
    before = top_level_names(site_packages)
    pip_install(bin_dir, str(wheel), cwd=tmp_path)
    added = top_level_names(site_packages) - before
    ours = {name for name in added if name.startswith("codex_probe")}
    assert ours == {"codex_probe", f"codex_probe-{wheel.name.split('-')[1]}.dist-info"}, added
    # Nothing else of ours: every other new name is a dependency's, none a folder of ours.
    assert not added & {"harness", "fake_appserver", "rig", "probes", "conformance", "reporting"}

    compiled = json.loads(
        run([str(bin_dir / "codex-probe"), "compile", "--event", "fresh_start", "--json"], tmp_path)
    )
    assert compiled["start_config"]["base_instructions"].strip()
    assert compiled["fingerprint"]
    version = run([str(bin_dir / "fake-codex"), "--version"], tmp_path)
    assert version.startswith("codex-cli "), version
    said = run([str(bin_dir / "codex-probe"), "--version"], tmp_path)
    assert said == f"codex-probe {wheel.name.split('-')[1]}\n", said
    version = run(
        [str(bin_dir / "python"), "-c", "import codex_probe; print(codex_probe.__version__)"],
        tmp_path,
    )
    assert version == f"{wheel.name.split('-')[1]}\n"
    assemble = (
        "from codex_probe.probes.releases.repro.assemble import script_text; print(script_text())"
    )
    script = run([str(bin_dir / "python"), "-c", assemble], tmp_path)
    assert script.startswith("#!/usr/bin/env python3\n"), script[:200]


def python_finds(bin_dir: Path, module: str, cwd: Path) -> bool:
    code = f"import importlib.util as u; print(u.find_spec({module!r}) is not None)"
    return run([str(bin_dir / "python"), "-c", code], cwd).strip() == "True"


@pytest.mark.starts_early  # a venv, and a probe of one finding on the real codex-cli
@pytest.mark.real
def test_the_base_install_has_no_pytest_and_probes_the_real_codex_cli(
    wheel: Path, tmp_path: Path
) -> None:
    bin_dir = fresh_venv(tmp_path / "venv")
    pip_install(bin_dir, str(wheel), cwd=tmp_path)
    extra = ["pytest", "pytest_asyncio", "hypothesis", "allure_pytest"]
    assert [m for m in extra if python_finds(bin_dir, m, tmp_path)] == []
    said = run(
        [
            str(bin_dir / "codex-probe"),
            "probe",
            "--codex",
            DEFAULT_CODEX_VERSION,
            "--only",
            "start-applies-instructions",
            "--out",
            str(tmp_path / "out"),
        ],
        tmp_path,
    )
    verdict = json.loads((tmp_path / "out" / "verdict.json").read_text())
    entry = verdict["versions"][DEFAULT_CODEX_VERSION]["start-applies-instructions"]
    assert entry["verdict"] == "holds", said


@pytest.mark.starts_early  # a venv with pytest beside the base install
def test_pytest_beside_the_base_install_gets_no_fixture_and_one_line_naming_the_extra(
    wheel: Path, tmp_path: Path
) -> None:
    bin_dir = fresh_venv(tmp_path / "venv")
    pip_install(bin_dir, str(wheel), "pytest", cwd=tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}

    def pytest_run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(bin_dir / "pytest"), "-p", "no:cacheprovider", *args],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_S,
            env=env,
            check=False,
        )

    empty = pytest_run("--co", "-q")
    assert empty.returncode == 5, empty.stdout + empty.stderr  # no tests, and nothing else
    assert "codex" not in empty.stdout + empty.stderr
    for args in (["--codex-backend", "fake"], ["--pyargs", "codex_probe.conformance.suites"]):
        refused = pytest_run(*args)
        assert refused.returncode == 4, refused.stdout + refused.stderr  # a usage error
        assert (
            "codex-probe's conformance suites need its pytest extra (pytest-asyncio, "
            "hypothesis, allure-pytest missing): pip install 'codex-probe[pytest]'"
        ) in refused.stdout + refused.stderr


@pytest.mark.starts_early  # a venv with the extra, and the suites' handshake checks
def test_the_conformance_suites_run_from_the_wheel_with_its_pytest_extra(
    wheel: Path, tmp_path: Path
) -> None:
    bin_dir = fresh_venv(tmp_path / "venv")
    pip_install(bin_dir, f"{wheel}[pytest]", cwd=tmp_path)
    said = run(
        [
            str(bin_dir / "pytest"),
            "-p",
            "no:cacheprovider",
            "--pyargs",
            "codex_probe.conformance.suites",
            "--codex-backend",
            "fake",
            "--codex-version",
            DEFAULT_CODEX_VERSION,
            "-k",
            "handshake",
        ],
        tmp_path,
    )
    assert re.search(r"\b\d+ passed\b", said), said[-2000:]


def metadata_of(text: str) -> tuple[dict[str, list[str]], str]:
    """A METADATA / PKG-INFO file's headers (each name's values) and its description."""
    headers, _, description = text.partition("\n\n")
    found: dict[str, list[str]] = {}
    for line in headers.splitlines():
        name, _, value = line.partition(": ")
        found.setdefault(name, []).append(value)
    return found, description


@pytest.mark.starts_early  # builds an sdist
def test_the_sdist_and_the_metadata_are_what_a_package_index_shows(
    wheel: Path, tmp_path: Path
) -> None:
    sources = checkout_copy(tmp_path / "sources")
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "build", "--sdist", "--outdir", str(dist), str(sources)], tmp_path)
    (sdist,) = dist.glob("codex_probe-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = [name.split("/", 1)[1] for name in archive.getnames() if "/" in name]
        pkg_info = archive.extractfile(f"{sdist.name.removesuffix('.tar.gz')}/PKG-INFO")
        assert pkg_info is not None
        sdist_metadata = pkg_info.read().decode()
    assert [n for n in names if n.startswith(("tests/", "bench/", "tools/"))] == []
    assert {"LICENSE", "docs/pypi.md", "pyproject.toml", "codex_probe/cli/main.py"} <= set(names)
    with zipfile.ZipFile(wheel) as archive:
        info = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        licenses = [n for n in archive.namelist() if "/licenses/" in n]
        wheel_metadata = archive.read(info).decode()
    assert [name.rsplit("/", 1)[1] for name in licenses] == ["LICENSE"]
    for text in (sdist_metadata, wheel_metadata):
        headers, description = metadata_of(text)
        assert headers["License-Expression"] == ["Apache-2.0"]
        assert headers["License-File"] == ["LICENSE"]
        assert "Typing :: Typed" in headers["Classifier"]
        assert all(url.split(", ", 1)[1].startswith("https://") for url in headers["Project-URL"])
        assert headers["Description-Content-Type"] == ["text/markdown"]
        # What PyPI shows: no link or picture relative to a repository it does not have.
        relative = re.findall(r"\]\((?!https://)[^)]*\)", description)
        assert relative == [] and "pip install 'codex-probe[pytest]'" in description
