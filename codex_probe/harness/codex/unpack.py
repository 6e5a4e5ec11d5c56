"""Unpack one npm tarball into a folder, checked against its sha512 as it is read.

Run as `python -m codex_probe.harness.codex.unpack TARBALL SHA512_HEX INTO` by
npm_tarballs.py. A child process, not a thread of codex-probe: a history unpacks a release
(~170 MB of gzip, ~430 MB of binaries) while the release before it runs, and a thread would
contend for the GIL with that run's event loop at every block it copies.

What npm does to a package's tarball, repeated: the first path component (`package/`) is
dropped; a file is written 0755 if the tarball gives it any execute bit, else 0644; folders
are 0755. What npm would do otherwise, or what could reach outside the folder, is refused
instead of guessed: links, devices, absolute paths or `..`, and a digest that is not the one
npm's cache names the tarball by (checked over every byte, after the unpacking; the caller
throws the folder away). ISA-L's inflate (python-isal) takes 0.8 CPU-s for codex's platform
tarball, against 1.7 for zlib's and about 4 for `npm install`'s whole job (docs/benchmarks.md).

Exit 0 unpacked; 1 and one line on stderr: not unpacked (the caller has npm install it);
2 usage.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import stat
import sys
import tarfile
from pathlib import Path, PurePosixPath
from typing import Any, cast

from isal import igzip, isal_zlib

EXIT_NOT_UNPACKED = 1
EXIT_USAGE = 2
USAGE = "usage: python -m codex_probe.harness.codex.unpack TARBALL SHA512_HEX INTO"
# Bytes per copy: 1 MB ones cost 0.4 CPU-s more on codex's tarball (page faults), 16 KB 0.1.
CHUNK = 1 << 16
# What ISA-L raises on a broken stream (its stubs type it as an instance).
INFLATE_ERROR = cast("type[Exception]", isal_zlib.IsalError)


class NotUnpackable(Exception):
    """The tarball is not one this unpacks exactly as npm would."""


class _Hashing(io.RawIOBase):
    """The file as read, every byte also fed to a sha512."""

    def __init__(self, raw: io.BufferedReader) -> None:
        super().__init__()
        self.raw = raw
        self.digest = hashlib.sha512()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = self.raw.readinto(buffer)
        self.digest.update(memoryview(buffer)[:count])
        return int(count)

    def rest(self) -> None:
        buffer = bytearray(CHUNK)
        while self.readinto(buffer):
            pass


def relative_path(name: str) -> PurePosixPath | None:
    """Where an entry goes under the folder (None: the top folder itself)."""
    parts = PurePosixPath(name).parts
    if name.startswith("/") or ".." in parts:
        raise NotUnpackable(f"{name}: a path outside the package")
    inner = parts[1:]  # npm drops the first component, whatever its name
    return PurePosixPath(*inner) if inner else None


def unpack(tarball: Path, sha512_hex: str, into: Path) -> None:
    """Unpack `tarball` into `into`; NotUnpackable if it holds what npm would treat
    otherwise, or if its bytes are not those `sha512_hex` names."""
    with tarball.open("rb") as raw:
        hashing = _Hashing(raw)
        with (
            igzip.IGzipFile(fileobj=hashing, mode="rb") as inflated,  # type: ignore[no-untyped-call]
            tarfile.open(fileobj=inflated, mode="r|") as archive,
        ):
            for member in archive:
                _write(archive, member, into)
        hashing.rest()
    if hashing.digest.hexdigest() != sha512_hex:
        raise NotUnpackable(f"{tarball}: its sha512 is not the one npm's cache names it by")


def _write(archive: tarfile.TarFile, member: tarfile.TarInfo, into: Path) -> None:
    relative = relative_path(member.name)
    if member.isdir():
        if relative is not None:
            (into / relative).mkdir(mode=0o755, parents=True, exist_ok=True)
        return
    if not member.isfile():
        raise NotUnpackable(f"{member.name}: not a file or a folder")
    if relative is None:
        raise NotUnpackable(f"{member.name}: a file outside the package's folder")
    target = into / relative
    target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    source = archive.extractfile(member)
    assert source is not None  # a regular file always has its contents
    mode = 0o755 if member.mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH) else 0o644
    with source, open(target, "xb") as written:
        shutil.copyfileobj(source, written, CHUNK)
    os.chmod(target, mode)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(USAGE, file=sys.stderr)
        return EXIT_USAGE
    tarball, sha512_hex, into = Path(argv[0]), argv[1], Path(argv[2])
    try:
        unpack(tarball, sha512_hex, into)
    except (NotUnpackable, OSError, tarfile.TarError, EOFError, INFLATE_ERROR) as error:
        print(f"not unpacked: {error}", file=sys.stderr)
        return EXIT_NOT_UNPACKED
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
