"""The npm registry, through the npm client, always under a deadline.

npm gets the caller's npm setup (HOME for ~/.npmrc, NPM_CONFIG_*, proxies, CA files) and no
other variable (`harness.child_env.NPM`), and a download cache inside codex-probe's own
unless the caller chose one (`npm_cache.py`).
"""

from __future__ import annotations

import functools
import json
import platform
import shutil
import subprocess
from pathlib import Path
from typing import Any

from codex_probe.harness import child_env
from codex_probe.harness.codex.npm_cache import npm_cache_env
from codex_probe.harness.codex.npm_tarballs import NotUnpacked, unpack_release
from codex_probe.harness.codex.progress import InstallProgress, wait_showing
from codex_probe.harness.codex.versions import NPM_PACKAGE, NPM_SCOPE
from codex_probe.harness.jsonrpc.process import end_process_group
from codex_probe.harness.parent_death import bound_to_this_process

NPM_TIMEOUT = 300.0


class NpmError(RuntimeError):
    """npm is missing, failed, or did not finish in time."""


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise NpmError("npm was not found on PATH; install Node.js and npm to fetch codex-cli")
    return npm


def run_npm(
    args: list[str],
    *,
    cwd: Path | None = None,
    timeout: float = NPM_TIMEOUT,
    progress: InstallProgress | None = None,
) -> str:
    """npm's stdout; with `progress`, the wait is shown while npm fills a folder."""
    # Bound to this process: a kill -9 of codex-probe must not leave npm filling a folder.
    command = bound_to_this_process([_npm(), *args])
    process = subprocess.Popen(
        command,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
        env=child_env.child_env(child_env.NPM, npm_cache_env()),
        start_new_session=True,
    )
    try:
        if progress is None:
            stdout, stderr = wait_showing(process, timeout, None)
        else:
            with progress:
                stdout, stderr = wait_showing(process, timeout, progress)
    except subprocess.TimeoutExpired:
        raise NpmError(f"`npm {' '.join(args)}` did not finish within {timeout:.0f}s") from None
    finally:
        if process.poll() is None:  # a deadline or Ctrl-C: npm must not outlive us
            end_process_group(process, grace=2.0)
    if process.returncode != 0:
        last = _reason(stderr)
        raise NpmError(f"`npm {' '.join(args)}` failed (exit {process.returncode}): {last}")
    return stdout


def _reason(stderr: str) -> str:
    """The line of npm's stderr that says why: its last error line other than the one
    naming its log file (npm ends with that)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    said = [line for line in lines if "complete log of this run" not in line]
    return (said or lines or ["(no output)"])[-1]


def published_versions() -> list[str]:
    """Every version of the codex package the registry lists."""
    output = run_npm(["view", NPM_PACKAGE, "versions", "--json"], timeout=60)
    versions: Any = json.loads(output)
    if isinstance(versions, str):
        return [versions]
    return [str(v) for v in versions]


def platform_builds(version: str) -> dict[str, str]:
    """The release's optionalDependencies: platform package -> the build it resolves to."""
    output = run_npm(
        ["view", f"{NPM_PACKAGE}@{version}", "optionalDependencies", "--json"], timeout=60
    )
    builds: Any = json.loads(output) if output.strip() else {}
    return {str(k): str(v) for k, v in builds.items()} if isinstance(builds, dict) else {}


def latest_version() -> str:
    return run_npm(["view", f"{NPM_PACKAGE}@latest", "version"], timeout=60).strip()


@functools.cache
def codex_registry() -> str | None:
    """The registry npm installs codex's scope from, if npm says (asked once a process:
    0.2 CPU-s)."""
    said = run_npm(["config", "get", "registry", f"{NPM_SCOPE}:registry"], timeout=60)
    pairs = (line.partition("=") for line in said.splitlines())
    values = {key.strip(): value.strip() for key, _, value in pairs}
    scoped = values.get(f"{NPM_SCOPE}:registry", "")
    chosen = scoped if scoped not in ("", "undefined", "null") else values.get("registry", "")
    return chosen if chosen.startswith(("https://", "http://")) else None


def install_package(version: str, prefix: Path) -> None:
    """The exact codex version in `prefix` (its own node_modules), as `npm install` puts it
    there: unpacked from npm's cache when npm has its tarballs (npm_tarballs.py), else
    installed by npm."""
    try:
        unpack_release(version, prefix, platform_name(), codex_registry())
        return
    except NotUnpacked:
        pass  # npm's job: a release new to this machine, or one this cannot unpack exactly
    npm_install(version, prefix)


def npm_install(version: str, prefix: Path) -> None:
    """`npm install` the exact codex version into `prefix` (its own node_modules)."""
    progress = InstallProgress(f"codex-cli {version} from npm", prefix)
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
        progress=progress,
    )


def platform_name() -> str:
    """This machine as npm's codex platform packages name it: linux-x64, darwin-arm64, ..."""
    system = {"Linux": "linux", "Darwin": "darwin", "Windows": "win32"}.get(
        platform.system(), platform.system().lower()
    )
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64"}.get(
        platform.machine().lower(), platform.machine().lower()
    )
    return f"{system}-{machine}"
