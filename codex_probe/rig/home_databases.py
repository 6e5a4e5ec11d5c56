"""A new home's databases, as codex makes them at its first start, made once per binary.

At its first start in a home codex creates its SQLite databases and runs every migration
of each (0.171.0: five databases, 64 migrations in `state_5.sqlite` alone): 45 to 60 ms of
CPU of a 0.2 CPU-s start, and a probe starts about 26 app-servers in new homes. So the
first real app-server a process starts with a binary is preceded by one start of that
binary in a scratch home with no model provider (its `initialize`, then its stdin closed):
the `*.sqlite` files it leaves, and their write-ahead logs where codex left them unmerged
(0.165.0), are kept (the last KEPT binaries'), and each new home gets copies of every one
of them, or of none, before its codex first starts. Nothing else is copied: its
`installation_id`, its system skills, its config are each home's own, made by its codex.

What the copies hold is what codex's own first start leaves: the migrations' records,
a finished backfill of a sessions folder that was empty, empty tables. The surfaces of
0.145.0, 0.150.0 and 0.171.0 were the same with and without, 0.121.0's but for a race of
codex's own (docs/benchmarks.md).

A home whose codex home holds a database already (a restart) is left as it is. When the
scratch start fails (no handshake, an exit other than 0 once its stdin is closed), makes
no database, or leaves one that holds the scratch folder's path (a release that stored
its home's or its working folder's path would hand every home a path not its own), no
template is kept, and homes start as they did before: codex makes their databases.
"""

from __future__ import annotations

import asyncio
import shutil
import weakref
from pathlib import Path

from codex_probe.harness.codex.appserver import open_app_server
from codex_probe.harness.temp_folders import make_folder, removed
from codex_probe.rig.homes import IsolatedHome

DATABASES = "*.sqlite"
# What a database may still have beside it if codex did not checkpoint it on exit.
WRITE_AHEAD_LOG = "*.sqlite-wal"
# Nothing listens there: the scratch start must not talk to any home's model provider.
NO_PROVIDER = "http://127.0.0.1:9/v1"
EXIT_WITHIN_S = 10.0
# The binaries whose databases are kept (a history's releases follow each other: the
# oldest goes when a ninth comes, 0.2 to 2.5 MB each).
KEPT = 8

# binary -> the folder of its databases, or None when its scratch start made none; in the
# order they were made.
_templates: dict[str, Path | None] = {}
# One scratch start per binary and event loop at a time.
_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Lock]] = (
    weakref.WeakKeyDictionary()
)


async def seed_databases(binary: Path, codex_home: Path) -> None:
    """Copy `binary`'s first-start databases into `codex_home` if it holds none yet
    (a millisecond of file copies, on the caller's loop)."""
    if _holds_databases(codex_home):
        return
    template = await databases_of(binary)
    if template is not None:
        _copy_all_or_none(template, codex_home)


async def databases_of(binary: Path) -> Path | None:
    """The folder of the databases `binary` leaves in a new home (made on first use)."""
    key = str(binary)
    if key in _templates:
        return _templates[key]
    lock = _locks.setdefault(asyncio.get_running_loop(), {}).setdefault(key, asyncio.Lock())
    async with lock:
        if key not in _templates:
            _templates[key] = await _first_start(binary)
            _forget_all_but_the_last(KEPT)
    return _templates.get(key)


def _forget_all_but_the_last(kept: int) -> None:
    while len(_templates) > kept:
        folder = _templates.pop(next(iter(_templates)))
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
            removed(folder)


async def _first_start(binary: Path) -> Path | None:
    with IsolatedHome(NO_PROVIDER) as scratch:
        try:
            client, _ = await open_app_server(
                binary, env=scratch.env(), cwd=scratch.workdir, one_cpu=True
            )
        except Exception:  # the home's own start will say what is wrong
            return None
        if await client.close(grace=EXIT_WITHIN_S) != 0:
            return None
        return _kept(scratch.codex_home, scratch.root)


def _holds_databases(codex_home: Path) -> bool:
    return any(codex_home.glob(DATABASES))


def _kept(codex_home: Path, scratch: Path) -> Path | None:
    """The databases codex left in `codex_home`, copied to a folder of this process's; none
    if any names the scratch folder (a release that stores its home's or its working
    folder's path would hand every home a path that is not its own)."""
    made = [path for pattern in (DATABASES, WRITE_AHEAD_LOG) for path in codex_home.glob(pattern)]
    if not any(path.match(DATABASES) for path in made):
        return None
    if any(str(scratch).encode() in path.read_bytes() for path in made):
        return None
    folder = make_folder("databases")  # removed when this process ends
    for path in made:
        shutil.copyfile(path, folder / path.name)
    return folder


def _copy_all_or_none(source: Path, target: Path) -> None:
    """Every file of `source` into `target`, or none (a template forgotten while it was
    read): a home with part of them would be a home codex never makes."""
    copied: list[Path] = []
    try:
        for path in sorted(source.iterdir()):
            shutil.copyfile(path, target / path.name)
            copied.append(target / path.name)
    except OSError:
        for path in copied:
            path.unlink(missing_ok=True)
