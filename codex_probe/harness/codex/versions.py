"""The one place that names the default codex-cli version and the default matrix."""

from __future__ import annotations

import bisect

# The latest published @openai/codex on 2026-12-01.
DEFAULT_CODEX_VERSION = "0.171.0"
# 0.120.0 is the version the spec's observations (sections 1.2, 5.1, 5.3) were made on.
SPEC_CODEX_VERSION = "0.120.0"
DEFAULT_MATRIX: tuple[str, ...] = (SPEC_CODEX_VERSION, DEFAULT_CODEX_VERSION)

NPM_PACKAGE = "@openai/codex"


def version_key(version: str) -> tuple[int, ...]:
    """Numeric sort key of a plain X.Y.Z version; pre-release parts sort as 0."""
    parts: list[int] = []
    for piece in version.split("-", 1)[0].split("."):
        parts.append(int(piece) if piece.isdigit() else 0)
    return tuple(parts)


def is_release(version: str) -> bool:
    """A plain X.Y.Z release, not a platform build (0.171.0-linux-x64) or a pre-release."""
    pieces = version.split(".")
    return len(pieces) == 3 and all(piece.isdigit() for piece in pieces)


def nearest_versions(wanted: str, published: list[str], count: int = 5) -> list[str]:
    """The published releases around where `wanted` would sort, in version order.

    A wanted version that is not X.Y.Z gets the newest releases.
    """
    releases = sorted((v for v in published if is_release(v)), key=version_key)
    if not is_release(wanted):
        return releases[-count:]
    position = bisect.bisect_left([version_key(v) for v in releases], version_key(wanted))
    start = max(0, min(position - count // 2, len(releases) - count))
    return releases[start : start + count]
