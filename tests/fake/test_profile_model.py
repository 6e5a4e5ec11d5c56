"""Profiles are a typed model: a file either decodes into it whole or is refused at load."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codex_probe.fake_appserver.profile import (
    SCHEMA_FILE,
    BasePlacement,
    ProfileError,
    available_versions,
    load_profile,
    resolve_profile,
    schema_text,
)
from tests.fake.conftest import copy_profile, edit


def test_the_checked_in_schema_is_the_one_generated_from_the_model() -> None:
    regenerate = (
        "python -m codex_probe.fake_appserver.profile"
        " > codex_probe/fake_appserver/profiles/profile.schema.json"
    )
    assert SCHEMA_FILE.read_text() == schema_text(), f"regenerate it: {regenerate}"


@pytest.mark.parametrize("version", available_versions())
def test_every_checked_in_profile_loads_into_the_model(version: str) -> None:
    profile = load_profile(version)
    assert profile.version == version
    assert profile.checked_in
    assert isinstance(profile.behaviour.base_placement.value, BasePlacement)


def test_a_profile_without_a_field_the_fake_reads_is_refused_naming_the_file_and_field(
    tmp_path: Path,
) -> None:
    path = copy_profile("0.171.0", tmp_path)
    edit(path, lambda d: d["behaviour"]["compaction"]["value"].pop("notifies_thread_compacted"))
    with pytest.raises(ProfileError) as refused:
        load_profile(path=path)
    message = str(refused.value)
    assert str(path) in message
    assert "notifies_thread_compacted" in message
    assert "$.behaviour.compaction.value" in message


def test_a_value_the_model_does_not_know_is_refused(tmp_path: Path) -> None:
    path = copy_profile("0.120.0", tmp_path)
    edit(path, lambda d: d["behaviour"]["unsubscribe"].update(value="evaporates"))
    with pytest.raises(ProfileError, match=r"Invalid enum value 'evaporates'.*unsubscribe"):
        load_profile(path=path)


def test_a_field_the_model_does_not_know_is_refused(tmp_path: Path) -> None:
    path = copy_profile("0.120.0", tmp_path)
    edit(path, lambda d: d["behaviour"].update(telepathy={"value": 1}))
    with pytest.raises(ProfileError, match="telepathy"):
        load_profile(path=path)


def test_a_profile_that_refuses_an_idle_interrupt_needs_the_refusal_text(tmp_path: Path) -> None:
    path = copy_profile("0.171.0", tmp_path)
    edit(path, lambda d: d["errors"].update(no_active_turn_to_interrupt=None))
    with pytest.raises(ProfileError, match=r"errors\.no_active_turn_to_interrupt is null"):
        load_profile(path=path)


def test_a_wire_file_without_a_template_the_fake_builds_from_is_refused(tmp_path: Path) -> None:
    path = copy_profile("0.120.0", tmp_path)
    edit(tmp_path / "wire-0.120.0.json", lambda d: d["templates"].pop("thread_resume"))
    with pytest.raises(ProfileError, match=r"wire-0\.120\.0\.json: no template thread_resume"):
        load_profile(path=path)


def test_a_profile_that_is_not_json_is_refused_with_its_path_line_and_column(
    tmp_path: Path,
) -> None:
    path = tmp_path / "0.1.0.json"
    path.write_text("{ not json")
    with pytest.raises(ProfileError) as caught:
        load_profile(path=path)
    assert str(caught.value) == (
        f"{path}: invalid JSON at line 1:3: Expecting property name enclosed in double quotes"
    )


def test_a_truncated_profile_is_refused_as_invalid_json_where_it_ends(tmp_path: Path) -> None:
    path = copy_profile("0.171.0", tmp_path)
    first_ten_lines = path.read_text().splitlines(keepends=True)[:10]
    path.write_text("".join(first_ten_lines))
    with pytest.raises(ProfileError) as caught:
        load_profile(path=path)
    assert str(caught.value).startswith(f"{path}: invalid JSON at line 11:1: ")
    assert "unknown field" not in str(caught.value)


def test_a_profile_file_is_named_by_its_path_and_a_version_by_its_number(tmp_path: Path) -> None:
    path = copy_profile("0.120.0", tmp_path)
    from_file = resolve_profile(str(path))
    assert from_file.path == path and not from_file.checked_in
    assert resolve_profile("0.120.0").checked_in


def test_fake_codex_runs_on_a_profile_file(tmp_path: Path) -> None:
    path = copy_profile("0.171.0", tmp_path)
    edit(path, lambda d: d.update(version="0.171.0-learned"))
    done = subprocess.run(
        [sys.executable, "-m", "codex_probe.fake_appserver", "--profile", str(path), "--version"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert done.stdout == "codex-cli 0.171.0-learned\n"


def test_fake_codex_refuses_a_broken_profile_file_in_one_line(tmp_path: Path) -> None:
    path = copy_profile("0.171.0", tmp_path)
    edit(path, lambda d: d["errors"].pop("no_rollout"))
    done = subprocess.run(
        [sys.executable, "-m", "codex_probe.fake_appserver", "--profile", str(path), "--version"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "no_rollout" in done.stderr and str(path) in done.stderr
