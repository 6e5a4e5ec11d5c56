"""Where scratch folders go: the user's TMPDIR when set, else a RAM-backed folder that fits,
else the system's temp folder; and a home's path masks the same wherever it was."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness import scratch
from codex_probe.harness.scratch import ram_folder_fits, scratch_root
from codex_probe.harness.temp_folders import make_folder, removed
from codex_probe.probes.domain.surface.shape import mask_text
from codex_probe.probes.releases.learn.wire_capture import mask


@pytest.fixture
def decided_again(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """scratch_root() decides anew, and tempfile reads TMPDIR anew (both cache it)."""
    scratch_root.cache_clear()
    monkeypatch.setattr(tempfile, "tempdir", None)
    yield
    scratch_root.cache_clear()


@pytest.mark.parametrize("variable", ["TMPDIR", "TMP"])
def test_scratch_folders_go_to_the_temp_folder_the_user_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, decided_again: None, variable: str
) -> None:
    for name in scratch.USER_TEMP:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, str(tmp_path))
    assert scratch_root() == tmp_path.resolve()
    folder = make_folder("x")
    try:
        assert folder.parent == tmp_path.resolve() and folder.name.startswith("codex-probe-x-")
    finally:
        folder.rmdir()
        removed(folder)


def test_without_a_tmpdir_a_ram_folder_that_fits_is_taken_and_else_the_system_temp_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, decided_again: None
) -> None:
    for name in scratch.USER_TEMP:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(scratch, "RAM_FOLDER", tmp_path)
    monkeypatch.setattr(scratch, "ram_folder_fits", lambda folder: folder == tmp_path)
    assert scratch_root() == tmp_path.resolve()
    scratch_root.cache_clear()
    monkeypatch.setattr(scratch, "ram_folder_fits", lambda folder: False)
    assert scratch_root() == Path(tempfile.gettempdir()).resolve()


def test_a_folder_that_is_no_tmpfs_mount_is_not_taken_for_scratch(tmp_path: Path) -> None:
    assert ram_folder_fits(tmp_path) is False


@pytest.mark.parametrize(("blocks_over", "fits"), [(-1, False), (0, True)])
def test_a_writable_tmpfs_is_taken_for_scratch_only_with_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blocks_over: int, fits: bool
) -> None:
    real_statvfs = os.statvfs

    def with_room(path: Any) -> Any:
        found = real_statvfs(path)
        fields = list(found)
        fields[4] = scratch.MIN_FREE // found.f_frsize + blocks_over  # f_bavail
        return os.statvfs_result(fields)

    monkeypatch.setattr(scratch, "_is_tmpfs", lambda folder: True)
    monkeypatch.setattr(os, "statvfs", with_room)
    assert ram_folder_fits(tmp_path) is fits


def test_a_home_path_masks_the_same_from_tmp_dev_shm_or_another_tmpdir() -> None:
    for root in ("/tmp", "/dev/shm", "/var/folders/q1/x_7/T"):
        said = f"no rollout at {root}/codex-probe-ab_9/home/sessions, see log"
        assert mask_text(said) == "no rollout at <tmp>, see log", root
        assert mask(f"{root}/codex-probe-ab_9/home/codex_home") == "/codex-probe/home/codex_home"
