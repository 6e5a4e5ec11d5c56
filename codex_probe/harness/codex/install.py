"""Install a codex-cli version from npm into the cache, one folder per version.

An install happens in a private temporary folder and becomes visible only by an
atomic rename once the binary has reported the right version, so an install
interrupted half-way is never used. A per-version file lock makes concurrent
installs of the same version safe; the second waits and then finds it done.
"""

from __future__ import annotations

import contextlib
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

from codex_probe.harness import child_env
from codex_probe.harness.codex import in_use, npm
from codex_probe.harness.codex.cache import install_once, is_installed, versions_dir
from codex_probe.harness.codex.direct_launch import direct_binary, launcher_error
from codex_probe.harness.codex.versions import (
    LATEST,
    NPM_PACKAGE,
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
    """The install ran but did not produce a working binary of the wanted version; unless
    it is a NoPlatformBinaryError, for a reason of this machine (retried next time)."""


class NoPlatformBinaryError(InstallError):
    """The registry publishes the release but no binary of it for this platform: for good."""


@dataclass(frozen=True)
class Installation:
    """A package npm installed into a folder of the cache: codex-cli, or another tool the
    project installs the same way (Allure, with its own binary)."""

    version: str
    root: Path
    binary_relative: Path = BINARY_RELATIVE

    @property
    def binary(self) -> Path:
        return self.root / self.binary_relative

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
    if not is_installed(candidate.root, BINARY_RELATIVE):
        return None
    return _handed_out(candidate)


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


class _Registry:
    """The registry's list of releases as this process last heard it. Installing a release
    in it needs no new ask (half a CPU-second of node, once per release of a history; one
    unpublished since fails in npm install, as a fault to retry). One not in it is asked for
    again: it may have come out since."""

    def __init__(self) -> None:
        self.heard: list[str] = []

    def published(self, version: str) -> list[str]:
        if version not in self.heard:
            self.heard = npm.published_versions()
        return self.heard


_REGISTRY = _Registry()


def install(version: str, root: Path | None = None) -> Installation:
    """The installation of `version`, installing it from npm if it is not cached yet."""
    if checked_version_or_latest(version) != LATEST and (cached := installed(version, root)):
        return cached
    concrete = resolve_version(version)
    if cached := installed(concrete, root):
        return cached
    # Asked before any lock file is made: a version nobody published leaves nothing behind.
    published = _REGISTRY.published(concrete)
    if concrete not in published:
        raise UnknownVersionError(concrete, nearest_versions(concrete, published))
    # Held before it exists: a prune running while npm installs it must leave it be.
    in_use.hold(versions_dir(root), concrete)
    if cached := installed(concrete, root):
        return cached
    try:
        root_dir = install_once(
            versions_dir(root),
            concrete,
            lambda staging: _build(concrete, staging, published),
            BINARY_RELATIVE,
        )
    except OSError as error:  # a cache on a read-only or full disk: this machine's fault
        where = error.filename or versions_dir(root)
        raise InstallError(
            f"codex-cli {concrete} cannot be installed into the cache: {where}: "
            f"{error.strerror or error}"
        ) from None
    return _handed_out(Installation(concrete, root_dir))


def _handed_out(installation: Installation) -> Installation:
    """`installation` as callers get it: marked used, and started without node where its
    npm launcher can be stood in for (harness/codex/direct_launch.py)."""
    started_by = direct_binary(installation.root, installation.binary)
    relative = started_by.relative_to(installation.root)
    return mark_used(replace(installation, binary_relative=relative))


def _build(version: str, staging: Path, published: list[str]) -> None:
    npm.install_package(version, staging)
    try:
        reported = binary_version(staging / BINARY_RELATIVE)
    except InstallError as error:
        # npm exits 0 without the platform package both when the registry has none (for
        # good) and when this machine could not write it (a full disk): ask the registry.
        if missing := missing_platform_build(version, npm.platform_builds(version), published):
            raise NoPlatformBinaryError(
                f"the registry publishes no codex-cli {version} binary for this platform "
                f"({missing} is not published)"
            ) from None
        raise InstallError(f"{error} (a fault of this machine: tried again next time)") from None
    if reported != version:
        raise InstallError(f"npm installed a codex that reports {reported!r}, not {version}")


def missing_platform_build(
    version: str, builds: dict[str, str], published: list[str], platform_id: str | None = None
) -> str | None:
    """The platform build of `version` the registry lacks for this platform, or None.

    `builds` is the release's optionalDependencies (`@openai/codex-linux-x64` ->
    `npm:@openai/codex@0.171.0-linux-x64`); a release without any carries its binaries
    itself, so nothing is missing.
    """
    if not builds:
        return None
    wanted = platform_id or npm.platform_name()
    target = builds.get(f"{NPM_PACKAGE}-{wanted}")
    if target is None:
        return f"{NPM_PACKAGE}-{wanted}"
    built = target.rsplit("@", 1)[-1]
    return None if built in published else f"{NPM_PACKAGE}@{built}"


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
        # PATH: codex runs the shell's tools (the npm launcher, where it is the binary, node).
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
            f"`{binary} {' '.join(args)}` exited {done.returncode}: {launcher_error(done.stderr)}"
        )
    return done
