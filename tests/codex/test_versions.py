from __future__ import annotations

from codex_probe.harness.codex.versions import (
    DEFAULT_CODEX_VERSION,
    DEFAULT_MATRIX,
    is_release,
    nearest_versions,
)

PUBLISHED = [
    "0.1.0",
    "0.118.0",
    "0.119.0",
    "0.120.0",
    "0.121.0-alpha.1",
    "0.120.0-linux-x64",
    "0.125.0",
    "0.171.0",
    "0.171.0-linux-x64",
]


def test_default_version_is_part_of_the_default_matrix_with_the_spec_version() -> None:
    assert DEFAULT_MATRIX == ("0.120.0", DEFAULT_CODEX_VERSION)


def test_platform_builds_and_prereleases_are_not_releases() -> None:
    assert is_release("0.171.0")
    assert not is_release("0.171.0-linux-x64")
    assert not is_release("0.121.0-alpha.1")
    assert not is_release("latest")


def test_nearest_versions_surround_the_missing_version_in_order() -> None:
    assert nearest_versions("0.122.0", PUBLISHED, count=3) == ["0.120.0", "0.125.0", "0.171.0"]


def test_a_version_beyond_every_release_gets_the_newest_releases() -> None:
    assert nearest_versions("9.9.9", PUBLISHED, count=2) == ["0.125.0", "0.171.0"]


def test_a_version_that_is_not_x_y_z_gets_the_newest_releases() -> None:
    assert nearest_versions("banana", PUBLISHED, count=2) == ["0.125.0", "0.171.0"]
