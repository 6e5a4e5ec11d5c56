"""A codex-cli release installed from the tarballs npm has already downloaded, without npm.

`npm install` of a release whose tarballs are in npm's cache costs about 4 CPU-s, nearly
all of it node unpacking the platform package (~170 MB of gzip, ~430 MB of binaries), and
a history installs every release of its range in the background of the one before it
(docs/benchmarks.md). Here the release's two tarballs (its package, and its platform
package) are found in npm's cache, checked against the sha512 npm stored them by and
unpacked by unpack.py into the folders npm makes of them: node_modules/@openai/codex,
node_modules/@openai/codex-PLATFORM, and node_modules/.bin/codex linked to the package's
launcher.

npm's cache is a cacache store: `index-v5/ab/cd/rest` (the sha256 of a key) holds one line
per write, the sha1 of a JSON entry, a tab and the entry, the last line for a key counting;
npm's key for a download is `make-fetch-happen:request-cache:` and its URL, and the entry's
`integrity` is the sha512 that names the bytes, stored at `content-v2/sha512/ab/cd/rest`.
npm checked each download against the registry's integrity before it stored it.

Whatever this does not know exactly stays npm's job (`npm install` runs, as before): a
tarball npm has not downloaded (a release new to this machine), a cache npm chose for
itself, a registry whose tarballs are not at its standard path, a package with
dependencies, install scripts or a native build, a launcher other than `bin/codex.js`, a
platform package with a launcher or dependencies of its own, a link inside a tarball.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from base64 import b64decode
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from codex_probe.harness import child_env
from codex_probe.harness.codex.npm_cache import npm_cache_in_use
from codex_probe.harness.codex.progress import InstallProgress, wait_showing
from codex_probe.harness.codex.versions import NPM_NAME, NPM_PACKAGE, NPM_SCOPE
from codex_probe.harness.parent_death import bound_to_this_process

INDEX = Path("index-v5")
CONTENT = Path("content-v2") / "sha512"
KEY_PREFIX = "make-fetch-happen:request-cache:"
# What npm runs when it installs a package from a registry tarball.
INSTALL_SCRIPTS = ("preinstall", "install", "postinstall")
DEPENDENCY_FIELDS = (
    "dependencies",
    "peerDependencies",
    "bundleDependencies",
    "bundledDependencies",
)
LAUNCHER = {"codex": "bin/codex.js"}
UNPACK_TIMEOUT_S = 300.0


class NotUnpacked(Exception):
    """Why the release is left to npm."""


@dataclass(frozen=True)
class CachedTarball:
    url: str
    path: Path
    sha512_hex: str


def tarball_url(registry: str, build: str) -> str:
    """Where the registry serves the codex package's tarball of `build` (`0.171.0`, or a
    platform build, `0.171.0-linux-x64`): npm's standard path for a scoped package."""
    return f"{registry.rstrip('/')}/{NPM_PACKAGE}/-/{NPM_NAME}-{build}.tgz"


def cached_tarball(cacache: Path, url: str) -> CachedTarball | None:
    """The tarball npm stored for `url`, if its index names one whose bytes are there."""
    key = KEY_PREFIX + url
    hashed = hashlib.sha256(key.encode()).hexdigest()
    try:
        lines = (cacache / INDEX / hashed[:2] / hashed[2:4] / hashed[4:]).read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    for line in reversed(lines.splitlines()):
        check, _, text = line.partition("\t")
        if hashlib.sha1(text.encode()).hexdigest() != check:
            continue  # a line cut short by a crash: cacache skips it too
        try:
            entry: Any = json.loads(text)
        except ValueError:
            continue
        if not isinstance(entry, dict) or entry.get("key") != key:
            continue
        digest = _sha512_hex(entry.get("integrity"))
        if digest is None:
            return None  # removed from the cache (cacache writes a null integrity)
        path = cacache / CONTENT / digest[:2] / digest[2:4] / digest[4:]
        return CachedTarball(url, path, digest) if path.is_file() else None
    return None


def _sha512_hex(integrity: Any) -> str | None:
    """The sha512 of a subresource-integrity string (`sha512-BASE64`, maybe among others)."""
    if not isinstance(integrity, str):
        return None
    for part in integrity.split():
        algorithm, _, value = part.partition("-")
        if algorithm == "sha512":
            try:
                return b64decode(value.split("?", 1)[0], validate=True).hex()
            except ValueError:
                return None
    return None


def unpack_release(version: str, prefix: Path, platform: str, registry: str | None) -> None:
    """Install `version` into `prefix` as `npm install` would, from npm's cache (npm's
    downloads from `registry`); NotUnpacked (and nothing left in `prefix`) when that is
    npm's job."""
    cache = npm_cache_in_use()
    if cache is None:
        raise NotUnpacked("npm keeps a cache of its own choosing")
    if registry is None:
        raise NotUnpacked("npm names no registry URL")
    build = f"{version}-{platform}"
    package = cached_tarball(cache / "_cacache", tarball_url(registry, version))
    platform_build = cached_tarball(cache / "_cacache", tarball_url(registry, build))
    if package is None or platform_build is None:
        raise NotUnpacked("not in npm's cache yet")
    modules = prefix / "node_modules"
    package_dir = modules / NPM_SCOPE / NPM_NAME
    build_dir = modules / NPM_SCOPE / f"{NPM_NAME}-{platform}"
    try:
        with InstallProgress(f"codex-cli {version} from npm's cache", modules) as progress:
            unpack_tarball(package, package_dir, progress)
            _check_package(package_dir, version, platform)
            unpack_tarball(platform_build, build_dir, progress)
            _check_platform_build(build_dir, build)
        launcher = package_dir / LAUNCHER["codex"]
        launcher.chmod(0o755)
        (modules / ".bin").mkdir()
        (modules / ".bin" / "codex").symlink_to(Path("..", NPM_SCOPE, NPM_NAME, LAUNCHER["codex"]))
    except (NotUnpacked, OSError) as why:
        shutil.rmtree(modules, ignore_errors=True)
        raise NotUnpacked(str(why)) from None


def unpack_tarball(tarball: CachedTarball, into: Path, progress: InstallProgress) -> None:
    into.mkdir(parents=True)
    command = [sys.executable, "-I", "-m", "codex_probe.harness.codex.unpack"]
    process = subprocess.Popen(
        bound_to_this_process([*command, str(tarball.path), tarball.sha512_hex, str(into)]),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=child_env.child_env(child_env.UNPACK),
        start_new_session=True,
    )
    try:
        _, stderr = wait_showing(process, UNPACK_TIMEOUT_S, progress)
    except subprocess.TimeoutExpired:
        raise NotUnpacked(f"{tarball.url}: not unpacked within {UNPACK_TIMEOUT_S:.0f} s") from None
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if process.returncode != 0:
        said = stderr.strip().splitlines()
        raise NotUnpacked(f"{tarball.url}: {said[-1] if said else process.returncode}")


def _manifest(folder: Path) -> dict[str, Any]:
    try:
        manifest: Any = json.loads((folder / "package.json").read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise NotUnpacked(f"{folder}: no package.json npm could read: {error}") from None
    if not isinstance(manifest, dict):
        raise NotUnpacked(f"{folder}/package.json: not an object")
    return manifest


def _check_plain(folder: Path, manifest: dict[str, Any], what: str, version: str) -> None:
    """A package npm installs by unpacking alone: itself, no more, nothing run."""
    if manifest.get("name") != NPM_PACKAGE or manifest.get("version") != version:
        raise NotUnpacked(f"{what}: not {NPM_PACKAGE}@{version}")
    if fields := [field for field in DEPENDENCY_FIELDS if manifest.get(field)]:
        raise NotUnpacked(f"{what}: has {', '.join(fields)}")
    scripts = manifest.get("scripts") or {}
    if not isinstance(scripts, dict) or any(name in scripts for name in INSTALL_SCRIPTS):
        raise NotUnpacked(f"{what}: has install scripts")
    if manifest.get("gypfile") or (folder / "binding.gyp").exists():
        raise NotUnpacked(f"{what}: has a native build")


def _check_package(folder: Path, version: str, platform: str) -> None:
    manifest = _manifest(folder)
    _check_plain(folder, manifest, NPM_PACKAGE, version)
    if _bins(manifest.get("bin")) != LAUNCHER:
        raise NotUnpacked(f"{NPM_PACKAGE}@{version}: a launcher other than {LAUNCHER}")
    builds = manifest.get("optionalDependencies") or {}
    wanted = f"npm:{NPM_PACKAGE}@{version}-{platform}"
    if not isinstance(builds, dict) or builds.get(f"{NPM_PACKAGE}-{platform}") != wanted:
        raise NotUnpacked(f"{NPM_PACKAGE}@{version}: its {platform} build is not {wanted}")


def _check_platform_build(folder: Path, build: str) -> None:
    manifest = _manifest(folder)
    _check_plain(folder, manifest, f"{NPM_PACKAGE}@{build}", build)
    if manifest.get("bin") or manifest.get("optionalDependencies"):
        raise NotUnpacked(f"{NPM_PACKAGE}@{build}: has a launcher or dependencies")


def _bins(bin_field: Any) -> dict[str, str] | None:
    """npm's `bin`, as names to paths inside the package (a string names the package's own)."""
    if isinstance(bin_field, str):
        bin_field = {NPM_NAME: bin_field}
    if not isinstance(bin_field, dict):
        return None
    return {str(k): PurePosixPath(str(v)).as_posix() for k, v in bin_field.items()}
