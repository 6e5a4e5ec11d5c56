"""Install a codex-cli version from npm into the cache, one folder per version.

An install happens in a private temporary folder and becomes visible only by an
atomic rename once the binary has reported the right version, so an install
interrupted half-way is never used. A per-version file lock makes concurrent
installs of the same version safe; the second waits and then finds it done.
"""

from __future__ import annotations

import contextlib
import subprocess
from dataclasses import dataclass
from pathlib import Path

from codex_probe.harness import child_env
from codex_probe.harness.codex import in_use, npm
from codex_probe.harness.codex.cache import install_once, is_installed, versions_dir
from codex_probe.harness.codex.versions import (
    LATEST,
    checked_version,
    checked_version_or_latest,
    is_release,
    nearest_versions,
)
from codex_probe.harness.files import inside
from codex_probe.harness.parent_death import bound_to_this_process
from codex_probe.harness.temp_folders import temporary_folder

BINARY_RELATIVE = Path("node_modules") / ".bin" / "codex"
# Touched whenever an installation is handed out; `codex-probe cache prune` reads its mtime.
LAST_USED = "last-used"


class UnknownVersionError(ValueError):
    """The registry does not publish the requested codex-cli version."""

    def __init__(self, version: str, nearest: list[str]) -> None:
        self.version = version
        self.nearest = nearest
        near = ", ".join(nearest) if nearest else "none found"
        super().__init__(f"codex-cli {version} is not published on npm; nearest versions: {near}")


class InstallError(RuntimeError):
    """The install ran but did not produce a working binary of the wanted version."""


@dataclass(frozen=True)
class Installation:
    version: str
    root: Path

    @property
    def binary(self) -> Path:
        return self.root / BINARY_RELATIVE

    @property
    def schema_dir(self) -> Path:
        return self.root / "schema"


def installed(version: str, root: Path | None = None) -> Installation | None:
    """The cached installation of `version`, or None; never touches the network.

    One handed out is in use by this process until it exits: no prune removes it. A
    `version` that is not one is refused (InvalidVersionError) before any path is built.
    """
    versions = versions_dir(root)
    candidate = Installation(version, inside(versions, checked_version(version)))
    if not is_installed(candidate.root, BINARY_RELATIVE):
        return None  # checked first: no lock file for a version that is not there
    in_use.hold(versions, version)
    # Checked again under the hold: a prune may have removed it just before.
    return mark_used(candidate) if is_installed(candidate.root, BINARY_RELATIVE) else None


def mark_used(installation: Installation) -> Installation:
    """`installation`, its last-used stamp set to now."""
    # A stamp that cannot be written only makes pruning less exact; never fail the caller.
    with contextlib.suppress(OSError):
        (installation.root / LAST_USED).touch()
    return installation


def resolve_version(version: str) -> str:
    """A concrete version: `latest` asks the registry, anything else is checked as a release."""
    if version == LATEST:
        return checked_version(npm.latest_version())
    if not is_release(version):
        raise UnknownVersionError(version, nearest_versions(version, npm.published_versions()))
    return version


def install(version: str, root: Path | None = None) -> Installation:
    """The installation of `version`, installing it from npm if it is not cached yet."""
    if checked_version_or_latest(version) != LATEST and (cached := installed(version, root)):
        return cached
    concrete = resolve_version(version)
    # Held before it exists: a prune running while npm installs it must leave it be.
    in_use.hold(versions_dir(root), concrete)
    if cached := installed(concrete, root):
        return cached
    root_dir = install_once(
        versions_dir(root), concrete, lambda staging: _build(concrete, staging), BINARY_RELATIVE
    )
    return mark_used(Installation(concrete, root_dir))


def _build(version: str, staging: Path) -> None:
    published = npm.published_versions()
    if version not in published:
        raise UnknownVersionError(version, nearest_versions(version, published))
    npm.install_package(version, staging)
    reported = binary_version(staging / BINARY_RELATIVE)
    if reported != version:
        raise InstallError(f"npm installed a codex that reports {reported!r}, not {version}")


def binary_version(binary: Path, timeout: float = 30.0) -> str:
    """What `codex --version` says, as a bare version (`codex-cli 0.171.0` -> `0.171.0`)."""
    done = run_codex_tool(binary, ["--version"], timeout=timeout)
    words = done.stdout.split()
    if not words:
        raise InstallError(f"{binary} --version printed nothing")
    return words[-1]


def run_codex_tool(
    binary: Path, args: list[str], *, timeout: float = 60.0
) -> subprocess.CompletedProcess[str]:
    """Run a one-shot codex subcommand in a throwaway home, never the user's ~/.codex."""
    with temporary_folder("tool") as home:
        # The npm shim runs node; codex itself needs nothing else from the caller.
        own = {"PATH": child_env.search_path(), "HOME": str(home), "CODEX_HOME": str(home)}
        env = child_env.child_env(child_env.CODEX, own)
        try:
            done = subprocess.run(
                bound_to_this_process([str(binary), *args]),
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=home,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise InstallError(f"`{binary} {' '.join(args)}` failed: {error}") from None
    if done.returncode != 0:
        raise InstallError(
            f"`{binary} {' '.join(args)}` exited {done.returncode}: {_reason(done.stderr)}"
        )
    return done


def _reason(stderr: str) -> str:
    """The line that says why (a node launcher prints `Error: ...` amid its stack)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    said = next((line for line in lines if line.startswith("Error")), None)
    return said or stderr.strip()[-500:] or "(no output)"
