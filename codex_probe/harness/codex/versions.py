"""The one place that names the default codex-cli version and the default matrix."""

from __future__ import annotations

import bisect
import re

# The latest published @openai/codex on 2026-12-01.
DEFAULT_CODEX_VERSION = "0.171.0"
# 0.120.0 is the version the spec's observations (sections 1.2, 5.1, 5.3) were made on.
SPEC_CODEX_VERSION = "0.120.0"
DEFAULT_MATRIX: tuple[str, ...] = (SPEC_CODEX_VERSION, DEFAULT_CODEX_VERSION)

NPM_PACKAGE = "@openai/codex"
# Its scope and its name in it: npm's tarball paths, folders and registry settings use them.
NPM_SCOPE, NPM_NAME = NPM_PACKAGE.split("/", 1)
LATEST = "latest"

# A version is a file name in the cache and in a history's folder: X.Y.Z, ASCII digits, with
# an optional npm pre-release or platform suffix of ASCII letters, digits and hyphens in
# dot-separated parts (0.121.0-alpha.1, 0.171.0-linux-x64). No '/', no '..', no other
# script's digits, and short: nothing else is ever used as a path.
VERSION_PATTERN = (
    r"^[0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9}(?:-[0-9A-Za-z-]{1,30}(?:\.[0-9A-Za-z-]{1,30}){0,4})?$"
)
_VERSION = re.compile(VERSION_PATTERN)
_RELEASE = re.compile(r"[0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9}")


class InvalidVersionError(ValueError):
    """A text used as a codex-cli version that is not one (a usage error)."""


def checked_version(text: str) -> str:
    """`text` if it is a codex-cli version (see _VERSION); else InvalidVersionError, one
    short line however long or strange the text."""
    if _VERSION.fullmatch(text):
        return text
    shown = repr(text if len(text) <= 40 else text[:40] + "...")
    raise InvalidVersionError(f"{shown} is not a codex-cli version (X.Y.Z, such as 0.171.0)")


def checked_version_or_latest(text: str) -> str:
    """`latest`, or `text` checked as a version."""
    return text if text == LATEST else checked_version(text)


def version_key(version: str) -> tuple[int, ...]:
    """Numeric sort key of a plain X.Y.Z version; pre-release parts sort as 0."""
    parts: list[int] = []
    for piece in version.split("-", 1)[0].split("."):
        parts.append(int(piece) if piece.isascii() and piece.isdigit() else 0)
    return tuple(parts)


def is_release(version: str) -> bool:
    """A plain X.Y.Z release, not a platform build (0.171.0-linux-x64) or a pre-release."""
    return _RELEASE.fullmatch(version) is not None


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
