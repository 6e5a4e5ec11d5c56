"""The repository checks out on case-insensitive filesystems (macOS, Windows) too."""

from __future__ import annotations

import subprocess
from collections import defaultdict
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


def tracked_files() -> list[str]:
    listing = subprocess.run(
        ["git", "-C", str(REPOSITORY), "ls-files", "-z"],
        capture_output=True,
        check=True,
        timeout=60,
    )
    return [name.decode() for name in listing.stdout.split(b"\0") if name]


def case_collisions(paths: list[str]) -> list[list[str]]:
    """Groups of paths that name the same file when case is ignored (folders included)."""
    spellings: defaultdict[str, set[str]] = defaultdict(set)
    for path in paths:
        parts = path.split("/")
        for depth in range(1, len(parts) + 1):
            prefix = "/".join(parts[:depth])
            spellings[prefix.casefold()].add(prefix)
    return sorted(sorted(group) for group in spellings.values() if len(group) > 1)


def test_case_collisions_finds_files_and_folders_that_differ_only_by_case() -> None:
    paths = ["a/README.md", "a/readme.md", "Docs/x.md", "docs/y.md", "b/one.md"]
    assert case_collisions(paths) == [["Docs", "docs"], ["a/README.md", "a/readme.md"]]


def test_no_two_tracked_files_differ_only_by_case() -> None:
    files = tracked_files()
    assert files, "git ls-files listed nothing"
    assert case_collisions(files) == []
