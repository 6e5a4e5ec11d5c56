"""The published codex-cli releases in a range, oldest first."""

from __future__ import annotations

from codex_probe.harness.codex import npm
from codex_probe.harness.codex.install import UnknownVersionError, resolve_version
from codex_probe.harness.codex.versions import is_release, nearest_versions, version_key


def releases_between(first: str, last: str, published: list[str]) -> list[str]:
    """Plain X.Y.Z releases from `first` to `last`, both included, in version order."""
    low, high = version_key(first), version_key(last)
    return sorted(
        (v for v in set(published) if is_release(v) and low <= version_key(v) <= high),
        key=version_key,
    )


def published_range(first: str, last: str) -> list[str]:
    """The releases from `first` to `last` (`latest` allowed); each end must be published."""
    published = npm.published_versions()
    ends = [resolve_version(first), resolve_version(last)]
    for end in ends:
        if end not in published:
            raise UnknownVersionError(end, nearest_versions(end, published))
    if version_key(ends[0]) > version_key(ends[1]):
        raise RangeError(f"the range {ends[0]}..{ends[1]} runs backwards; give the older first")
    return releases_between(ends[0], ends[1], published)


class RangeError(ValueError):
    """A range of releases that is not one."""
