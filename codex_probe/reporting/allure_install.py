"""The Allure 3 command line (npm `allure`), pinned, installed once into the codex-probe cache.

Laid out like the codex-cli installs: `$CODEX_PROBE_CACHE/allure/VERSION/`, built in a
private folder and made visible by an atomic rename once npm has put exactly that
version in place, under a per-version file lock. After that, making a report needs no
network at all.
"""

from __future__ import annotations

import json
from pathlib import Path

from codex_probe.harness.codex.cache import cache_root, install_once, is_installed
from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.npm import run_npm
from codex_probe.harness.codex.progress import InstallProgress

ALLURE_PACKAGE = "allure"
# Pinned: the report layout, the categories config and the analytics tag we strip from
# the page were all checked against this version (tests/reports/ check them again).
ALLURE_VERSION = "3.18.0"
BINARY_RELATIVE = Path("node_modules") / ".bin" / "allure"
PACKAGE_JSON_RELATIVE = Path("node_modules") / ALLURE_PACKAGE / "package.json"


class AllureInstallError(RuntimeError):
    """npm ran but did not leave the wanted Allure version behind."""


def allure_dir(root: Path | None = None) -> Path:
    return (root or cache_root()) / "allure"


def installed_allure(
    version: str = ALLURE_VERSION, root: Path | None = None
) -> Installation | None:
    """The cached installation, or None; never touches the network."""
    candidate = Installation(version, allure_dir(root) / version, BINARY_RELATIVE)
    return candidate if is_installed(candidate.root, BINARY_RELATIVE) else None


def install_allure(version: str = ALLURE_VERSION, root: Path | None = None) -> Installation:
    folder = install_once(
        allure_dir(root), version, lambda staging: _build(version, staging), BINARY_RELATIVE
    )
    return Installation(version, folder, BINARY_RELATIVE)


def _build(version: str, staging: Path) -> None:
    run_npm(
        [
            "install",
            "--prefix",
            str(staging),
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--ignore-scripts",  # allure needs none; nothing runs at install time
            "--loglevel=error",
            f"{ALLURE_PACKAGE}@{version}",
        ],
        progress=InstallProgress(f"Allure {version} from npm", staging),
    )
    found = _package_version(staging)
    if found != version:
        raise AllureInstallError(f"npm installed allure {found!r}, not {version}")
    if not (staging / BINARY_RELATIVE).exists():
        raise AllureInstallError(f"npm installed allure {version} without its `allure` binary")


def _package_version(prefix: Path) -> str | None:
    try:
        manifest = json.loads((prefix / PACKAGE_JSON_RELATIVE).read_text())
    except (OSError, json.JSONDecodeError):
        return None
    version = manifest.get("version")
    return version if isinstance(version, str) else None
