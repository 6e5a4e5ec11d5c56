"""An install that failed for a reason of this machine is tried again by the next run; only
what the registry says (unpublished, no binary for this platform) is for good, and a version
nobody published leaves nothing in the cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_probe.harness.codex.install import UnknownVersionError, install, missing_platform_build
from codex_probe.probes.releases.history import unavailable_entry
from codex_probe.probes.releases.sweep import to_probe

BUILDS_0_142_1 = {
    "@openai/codex-linux-x64": "npm:@openai/codex@0.142.1-linux-x64",
    "@openai/codex-darwin-arm64": "npm:@openai/codex@0.142.1-darwin-arm64",
}


def test_a_release_whose_platform_build_the_registry_lacks_is_missing_it_for_good() -> None:
    published = ["0.142.1", "0.142.1-darwin-arm64"]
    assert missing_platform_build("0.142.1", BUILDS_0_142_1, published, "linux-x64") == (
        "@openai/codex@0.142.1-linux-x64"
    )
    assert missing_platform_build("0.142.1", BUILDS_0_142_1, published, "win32-x64") == (
        "@openai/codex-win32-x64"
    )


def test_a_release_whose_platform_build_is_published_misses_nothing_so_a_failure_is_ours() -> None:
    published = ["0.142.1", "0.142.1-linux-x64"]
    assert missing_platform_build("0.142.1", BUILDS_0_142_1, published, "linux-x64") is None
    # A release that carries its binaries itself (no platform packages) misses nothing.
    assert missing_platform_build("0.80.0", {}, ["0.80.0"], "linux-x64") is None


def test_a_release_recorded_not_installable_by_a_full_disk_is_probed_again() -> None:
    # What a run before this fix recorded when the cache's disk filled during npm install.
    older = {**unavailable_entry("Error: Missing optional dependency"), "permanent": False}
    document = {"releases": {"0.162.1": older}}
    assert to_probe(["0.162.1"], document) == ["0.162.1"]


def test_a_release_the_registry_has_no_binary_for_is_not_probed_again() -> None:
    document = {"releases": {"0.142.1": unavailable_entry("no linux-x64 binary")}}
    assert to_probe(["0.142.1"], document) == []


def test_an_unpublished_version_leaves_no_lock_or_in_use_file_in_the_cache(tmp_path: Path) -> None:
    with pytest.raises(UnknownVersionError):
        install("0.0.999", root=tmp_path)
    leftovers = list((tmp_path / "codex").glob("*")) if (tmp_path / "codex").exists() else []
    assert leftovers == []
