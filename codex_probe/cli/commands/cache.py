"""`codex-probe cache list|prune`: the codex-cli installs on disk, and removing stale ones."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import Any

from codex_probe.cli.commands.options import DeprecatedOption, add_json_option, non_negative_int
from codex_probe.harness.codex.cache import cache_root
from codex_probe.harness.codex.installs import (
    CachedInstall,
    Kept,
    list_installs,
    prune_installs,
)
from codex_probe.harness.codex.npm_cache import npm_cache_dir, prune_npm_cache
from codex_probe.harness.codex.progress import folder_size
from codex_probe.harness.command_line import USAGE_ERROR, OneLineErrorParser

DEFAULT_KEEP = 4


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "cache",
        help="list the cached codex-cli installs, or remove the least recently used",
        description="Each cached codex-cli install takes a few hundred MB under "
        "$CODEX_PROBE_CACHE/codex, and npm keeps what it downloaded for them (and for "
        "Allure) in $CODEX_PROBE_CACHE/npm. `list` shows them, most recently used first; "
        "`prune` removes the least recently used installs beyond --keep-installs, and npm's "
        "download cache of codex-probe (never npm's cache of your own packages).",
    )
    actions = parser.add_subparsers(
        dest="cache_action", metavar="ACTION", required=True, parser_class=OneLineErrorParser
    )
    listing = actions.add_parser(
        "list",
        help="the installs, their size and last use",
        description="List the cached codex-cli installs, most recently used first: "
        "version, size, last use and folder, then their total.",
    )
    add_json_option(listing, "the installs and their total")
    listing.set_defaults(handler=run_list)
    prune = actions.add_parser(
        "prune",
        help="remove the least recently used installs",
        description="Remove the least recently used installs so that at most --keep-installs "
        "remain, and codex-probe's npm download cache ($CODEX_PROBE_CACHE/npm; not one you "
        "chose with NPM_CONFIG_CACHE). "
        "An install a running process uses, or that another process is installing or "
        "pruning, stays (and is listed as kept, with why).",
    )
    prune.add_argument(
        "--keep-installs",
        type=non_negative_int,
        default=DEFAULT_KEEP,
        metavar="N",
        help=f"how many installs to keep, the most recently used (default {DEFAULT_KEEP})",
    )
    prune.add_argument(
        "--keep",
        dest="keep_installs",
        type=non_negative_int,
        action=DeprecatedOption,
        command="cache prune",
        new="--keep-installs N",
    )
    add_json_option(prune, "what was removed and kept, and why")
    prune.set_defaults(handler=run_prune)


def run_list(args: argparse.Namespace) -> int:
    try:
        installs = list_installs()
    except OSError as error:
        return _unusable_cache("list", error)
    total = sum(install.size_bytes for install in installs)
    npm = npm_cache_dir()
    npm_bytes = folder_size(npm) if npm.is_dir() else 0
    if args.json:
        report = {
            "root": str(cache_root()),
            "installs": [_as_json(install) for install in installs],
            "total_bytes": total,
            "npm_cache": {"folder": str(npm), "size_bytes": npm_bytes},
        }
        print(json.dumps(report, indent=2))
        return 0
    rows = [("VERSION", "SIZE", "LAST USED", "PATH")] + [
        (
            install.version,
            human_size(install.size_bytes),
            _local_minute(install.last_used),
            str(install.path),
        )
        for install in installs
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    if installs:
        for *padded, path in rows:
            print(
                "".join(cell.ljust(width + 2) for cell, width in zip(padded, widths, strict=True))
                + path
            )
    print(f"total: {_count(len(installs))}, {human_size(total)} in {cache_root()}")
    print(f"npm's downloads for them: {human_size(npm_bytes)} in {npm} (cache prune removes it)")
    return 0


def run_prune(args: argparse.Namespace) -> int:
    try:
        pruned = prune_installs(args.keep_installs)
    except OSError as error:
        return _unusable_cache("prune", error)
    removed = pruned.removed
    npm = prune_npm_cache()
    freed = sum(install.size_bytes for install in removed) + npm.freed_bytes
    if args.json:
        report = {
            "root": str(cache_root()),
            "keep": args.keep_installs,
            "removed": [_as_json(install) for install in removed],
            "kept": [_kept_json(kept) for kept in pruned.kept],
            "npm_cache": {
                "folder": str(npm.folder),
                "freed_bytes": npm.freed_bytes,
                "kept": npm.kept,
            },
            "freed_bytes": freed,
        }
        print(json.dumps(report, indent=2))
        return 0
    for install in removed:
        print(f"removed {install.version}  {human_size(install.size_bytes)}")
    for kept in pruned.kept:
        print(f"kept {kept.install.version}: {kept.why.value}")
    if npm.kept is not None:
        print(f"kept npm's cache {npm.folder}: {npm.kept}")
    elif npm.freed_bytes:
        print(f"removed npm's downloads  {human_size(npm.freed_bytes)} ({npm.folder})")
    print(f"freed {human_size(freed)} ({_count(len(removed))} removed)")
    return 0


def human_size(size_bytes: int) -> str:
    """Decimal units, one decimal place: 424123456 -> `424.1 MB`."""
    if size_bytes < 1000:
        return f"{size_bytes} B"
    size = float(size_bytes)
    for unit in ("kB", "MB", "GB", "TB"):
        size /= 1000
        if round(size, 1) < 1000 or unit == "TB":
            break
    return f"{size:.1f} {unit}"


def _as_json(install: CachedInstall) -> dict[str, Any]:
    return {
        "version": install.version,
        "path": str(install.path),
        "size_bytes": install.size_bytes,
        "last_used": datetime.fromtimestamp(install.last_used, UTC).isoformat(timespec="seconds"),
    }


def _kept_json(kept: Kept) -> dict[str, Any]:
    return {**_as_json(kept.install), "why": kept.why.value}


def _local_minute(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp).isoformat(timespec="minutes")


def _count(installs: int) -> str:
    return f"{installs} install" + ("" if installs == 1 else "s")


def _unusable_cache(action: str, error: OSError) -> int:
    print(
        f"codex-probe cache {action}: cannot use the cache at {cache_root()}: {error}",
        file=sys.stderr,
    )
    return USAGE_ERROR
