"""The package a user installs: a wheel that holds its data and runs outside the checkout.

Builds the wheel with PyPA's `build` (as a packager would), installs it into a fresh venv
in a temporary folder, and runs both console scripts from there, with that folder as the
working directory so nothing of the checkout is on the path.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

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
    # The schemas of verdict.json, surface.json and history.json (docs/file-formats.md).
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


@pytest.mark.starts_early  # builds a wheel and a venv: about 14 s
def test_the_wheel_holds_its_data_and_its_commands_run_from_a_fresh_venv(
    tmp_path: Path,
) -> None:
    sources = checkout_copy(tmp_path / "sources")
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(sources)], tmp_path)
    (wheel,) = dist.glob("codex_probe-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert [path for path in PACKAGE_DATA if path not in names] == []
    assert {name.split("/")[0] for name in names} == {
        "codex_probe",
        f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info",
    }

    venv.create(tmp_path / "venv", with_pip=True)
    bin_dir = tmp_path / "venv" / "bin"
    (site_packages,) = (tmp_path / "venv" / "lib").glob("python3*/site-packages")
    before = top_level_names(site_packages)
    run(
        [str(bin_dir / "pip"), "install", "-q", "--disable-pip-version-check", str(wheel)], tmp_path
    )
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
    assemble = (
        "from codex_probe.probes.releases.repro.assemble import script_text; print(script_text())"
    )
    script = run([str(bin_dir / "python"), "-c", assemble], tmp_path)
    assert script.startswith("#!/usr/bin/env python3\n"), script[:200]
