"""Installs a cross-release run makes, at most `keep` of them on disk at once.

A history of 76 releases at ~424 MB each does not fit comfortably, so each install the run
made is removed, least recently used first, once more than `keep` are on disk. Installs
that were in the cache before the run began are the user's, and are never touched.
"""

from __future__ import annotations

from collections.abc import Collection

from codex_probe.harness.codex.install import Installation, install
from codex_probe.harness.codex.installs import Removal, list_installs, try_remove


class InstallBudget:
    def __init__(self, keep: int) -> None:
        if keep < 1:
            raise ValueError(f"keep at least one install, not {keep}")
        self.keep = keep
        self.preexisting = {cached.version for cached in list_installs()}
        self.made: list[str] = []  # least recently used first
        self.removed: list[str] = []
        # Installs kept over the budget, and why (another process uses one, say).
        self.kept: dict[str, str] = {}

    def use(self, version: str, *, protect: Collection[str] = ()) -> Installation:
        """`version` installed (from npm if needed); older installs of the run trimmed."""
        installation = install(version)
        if installation.version not in self.preexisting:
            if installation.version in self.made:
                self.made.remove(installation.version)
            self.made.append(installation.version)
        self.trim(protect={installation.version, *protect})
        return installation

    def trim(self, *, protect: Collection[str] = ()) -> None:
        for version in list(self.made):
            if len(self.made) <= self.keep:
                return
            if version in protect:
                continue
            outcome = try_remove(version)
            if outcome in (Removal.REMOVED, Removal.ABSENT):
                self.made.remove(version)
                self.removed.append(version)
                self.kept.pop(version, None)
            else:
                self.kept[version] = outcome.value
