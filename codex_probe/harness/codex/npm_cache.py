"""npm's download cache of what codex-probe installs, kept inside codex-probe's own cache.

Every npm codex-probe runs (a codex-cli install, Allure's, `npm view`) is given
`npm_config_cache` = $CODEX_PROBE_CACHE/npm, unless the caller chose a cache for npm
(NPM_CONFIG_CACHE or npm_config_cache): so codex-probe never fills the npm cache of the
user's own packages (~/.npm: 2.5 GB after an afternoon of installs, before), and `cache
prune` removes what codex-probe put there, and nothing else. A cache the caller chose is
theirs: prune leaves it alone and says so.

A process that runs npm holds that folder in use (in_use.py, the name `npm`) until it
exits, as it holds an install it uses; prune removes the folder only when no running
process holds it, by one rename, so an npm at work never sees its cache vanish.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from codex_probe.harness.codex import in_use
from codex_probe.harness.codex.cache import cache_root
from codex_probe.harness.codex.progress import folder_size

NAME = "npm"
CHOSEN_BY_CALLER = ("NPM_CONFIG_CACHE", "npm_config_cache")


def npm_cache_dir(root: Path | None = None) -> Path:
    return (root or cache_root()) / NAME


def chosen_by_caller(env: Mapping[str, str] | None = None) -> str | None:
    """The npm cache the caller chose, if they chose one."""
    given = os.environ if env is None else env
    return next((given[name] for name in CHOSEN_BY_CALLER if given.get(name)), None)


def npm_cache_env(root: Path | None = None) -> dict[str, str]:
    """What an npm child gets on top of the caller's npm setup: codex-probe's own cache
    (held in use by this process from now on), or nothing when the caller chose one."""
    if chosen_by_caller() is not None:
        return {}
    folder = npm_cache_dir(root)
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        writable = os.access(folder.parent, os.W_OK)
    except OSError:
        writable = False
    if not writable:
        # A cache it cannot write (read-only): npm keeps its own, so that `npm view` still
        # answers and the install itself says, in one line, why it cannot go there.
        return {}
    in_use.hold(folder.parent, NAME)
    return {"npm_config_cache": str(folder)}


def npm_cache_in_use(root: Path | None = None) -> Path | None:
    """The folder npm's children keep their cache in: the caller's choice, or codex-probe's
    own (held in use from now on); None when npm picks its own (ours is not writable)."""
    if (chosen := chosen_by_caller()) is not None:
        return Path(chosen).expanduser()
    given = npm_cache_env(root).get("npm_config_cache")
    return Path(given) if given else None


@dataclass(frozen=True)
class NpmCachePrune:
    folder: Path
    freed_bytes: int
    kept: str | None  # why the folder stayed (None: removed, or there was none)


def prune_npm_cache(root: Path | None = None) -> NpmCachePrune:
    """Remove codex-probe's npm cache unless a running process uses it, or the caller
    gives npm a cache of their own (which is theirs to clean)."""
    folder = npm_cache_dir(root)
    if (chosen := chosen_by_caller()) is not None:
        return NpmCachePrune(Path(chosen), 0, "npm's cache is the one you chose; not ours")
    for leftover in folder.parent.glob(f".{NAME}.trash-*"):  # a delete cut short
        shutil.rmtree(leftover, ignore_errors=True)
    if not folder.is_dir():
        return NpmCachePrune(folder, 0, None)
    with contextlib.ExitStack() as held:
        if not in_use.claim_for_removal(held, folder.parent, NAME):
            return NpmCachePrune(folder, 0, "in use by a running process")
        size = folder_size(folder)
        trash = folder.with_name(f".{NAME}.trash-{secrets.token_hex(4)}")
        os.rename(folder, trash)
    shutil.rmtree(trash, ignore_errors=True)
    return NpmCachePrune(folder, size, None)
