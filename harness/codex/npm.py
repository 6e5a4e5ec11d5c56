"""The npm registry, through the npm client, always under a deadline.

npm gets the caller's npm setup (HOME for ~/.npmrc and its cache, NPM_CONFIG_*, proxies,
CA files) and no other variable: `harness.child_env.NPM`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from harness import child_env
from harness.codex.versions import NPM_PACKAGE

NPM_TIMEOUT = 300.0


class NpmError(RuntimeError):
    """npm is missing, failed, or did not finish in time."""


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise NpmError("npm was not found on PATH; install Node.js and npm to fetch codex-cli")
    return npm


def run_npm(args: list[str], *, cwd: Path | None = None, timeout: float = NPM_TIMEOUT) -> str:
    command = [_npm(), *args]
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
            env=child_env.child_env(child_env.NPM),
        )
    except subprocess.TimeoutExpired:
        raise NpmError(f"`npm {' '.join(args)}` did not finish within {timeout:.0f}s") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise NpmError(f"`npm {' '.join(args)}` failed (exit {done.returncode}): {last}")
    return done.stdout


def published_versions() -> list[str]:
    """Every version of the codex package the registry lists."""
    output = run_npm(["view", NPM_PACKAGE, "versions", "--json"], timeout=60)
    versions: Any = json.loads(output)
    if isinstance(versions, str):
        return [versions]
    return [str(v) for v in versions]


def latest_version() -> str:
    return run_npm(["view", f"{NPM_PACKAGE}@latest", "version"], timeout=60).strip()


def install_package(version: str, prefix: Path) -> None:
    """`npm install` the exact codex version into `prefix` (its own node_modules)."""
    run_npm(
        [
            "install",
            "--prefix",
            str(prefix),
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--loglevel=error",
            f"{NPM_PACKAGE}@{version}",
        ],
    )
