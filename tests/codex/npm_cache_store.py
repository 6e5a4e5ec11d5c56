"""npm's cache (a cacache store) and npm tarballs, made by hand for tests of reading them."""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import tarfile
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.npm_tarballs import KEY_PREFIX, tarball_url

REGISTRY = "https://registry.example/"
PLATFORM = "linux-x64"


def tarball(files: dict[str, bytes | None], *, links: dict[str, str] | None = None) -> bytes:
    """A gzipped tarball of `files` (path -> contents; None: a folder), every path as
    given (npm's put `package/` first), executable where the name ends in `.js` or `bin`."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as archive:
        for name, contents in files.items():
            info = tarfile.TarInfo(name)
            if contents is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                archive.addfile(info)
                continue
            info.size = len(contents)
            info.mode = 0o755 if name.endswith((".js", "bin")) else 0o644
            archive.addfile(info, io.BytesIO(contents))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            archive.addfile(info)
    return gzip.compress(raw.getvalue())


def integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def store(cacache: Path, url: str, data: bytes | None, *, integrity_of: str | None = None) -> None:
    """Write `data` into the store as npm's download of `url` (None: an entry that says it
    was removed); `integrity_of` overrides the integrity the index gives it."""
    entry: dict[str, Any] = {
        "key": KEY_PREFIX + url,
        "integrity": integrity_of or (integrity(data) if data is not None else None),
        "time": 1,
        "size": len(data or b""),
        "metadata": {"url": url},
    }
    if data is not None:
        digest = hashlib.sha512(data).hexdigest()
        content = cacache / "content-v2" / "sha512" / digest[:2] / digest[2:4] / digest[4:]
        content.parent.mkdir(parents=True, exist_ok=True)
        content.write_bytes(data)
    append_index_line(cacache, url, json.dumps(entry))


def append_index_line(cacache: Path, url: str, text: str, *, check: str | None = None) -> None:
    hashed = hashlib.sha256((KEY_PREFIX + url).encode()).hexdigest()
    bucket = cacache / "index-v5" / hashed[:2] / hashed[2:4] / hashed[4:]
    bucket.parent.mkdir(parents=True, exist_ok=True)
    line = f"{check or hashlib.sha1(text.encode()).hexdigest()}\t{text}\n"
    with bucket.open("a") as index:
        index.write("\n" + line)  # cacache starts each line with a newline


def manifest(version: str, **fields: Any) -> bytes:
    body = {"name": "@openai/codex", "version": version, **fields}
    return json.dumps(body).encode()


def package_manifest(version: str, **fields: Any) -> bytes:
    """The codex package's package.json, as 0.171.0's has it (its launcher, its builds)."""
    defaults: dict[str, Any] = {
        "bin": {"codex": "bin/codex.js"},
        "optionalDependencies": {
            f"@openai/codex-{PLATFORM}": f"npm:@openai/codex@{version}-{PLATFORM}",
            "@openai/codex-darwin-arm64": f"npm:@openai/codex@{version}-darwin-arm64",
        },
    }
    return manifest(version, **{**defaults, **fields})


def release(
    cacache: Path,
    version: str,
    *,
    package_json: bytes | None = None,
    build_json: bytes | None = None,
    build_links: dict[str, str] | None = None,
    with_build: bool = True,
) -> None:
    """A codex release's two tarballs in the store, as npm downloaded them from REGISTRY."""
    package = tarball(
        {
            "package/package.json": package_json or package_manifest(version),
            "package/bin/codex.js": b"#!/usr/bin/env node\n",
            "package/README.md": b"codex\n",
        }
    )
    store(cacache, tarball_url(REGISTRY, version), package)
    if not with_build:
        return
    build = f"{version}-{PLATFORM}"
    files: dict[str, bytes | None] = {
        "package/vendor": None,
        "package/package.json": build_json or manifest(build),
        "package/vendor/x86_64-unknown-linux-musl/bin/codex-bin": b"\x7fELF",
        "package/vendor/x86_64-unknown-linux-musl/notes.txt": b"notes\n",
    }
    store(cacache, tarball_url(REGISTRY, build), tarball(files, links=build_links))
