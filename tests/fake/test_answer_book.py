"""An answer book: learned from an exploration record, kept beside its profile, loaded
with it, and refused in one line naming the file and the field when it is broken."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_probe.fake_appserver.answer_book import (
    SCHEMA_FILE,
    book_path,
    load_book,
    schema_text,
)
from codex_probe.fake_appserver.profile import ProfileError, available_versions, load_profile
from codex_probe.probes.releases.learn.book import BookNotLearned, learn_book
from tests.fake.book_fixtures import ARCHIVE_CELLS, cell, profile_with_book, record
from tests.fake.conftest import edit


def test_the_checked_in_book_schema_is_the_one_generated_from_the_model() -> None:
    regenerate = (
        "python -m codex_probe.fake_appserver.answer_book"
        " > codex_probe/fake_appserver/profiles/book.schema.json"
    )
    assert SCHEMA_FILE.read_text() == schema_text(), f"regenerate it: {regenerate}"


def test_a_book_keeps_each_cells_answer_refusal_and_notifications_with_their_placeholders() -> None:
    book = learn_book(record("0.171.0", ARCHIVE_CELLS))
    answered, refused = book.cells_of("thread/archive")
    assert (answered.state, answered.variant, answered.outcome) == ("idle", "minimal", "answered")
    assert answered.params == {"threadId": "{{thread}}"}
    assert [(n.method, n.params) for n in answered.notifications] == [
        ("thread/archived", {"threadId": "{{thread}}"})
    ]
    assert refused.error is not None
    assert (refused.error.code, refused.error.message) == (
        -32600,
        "no rollout found for thread id {{thread}}",
    )


def test_a_book_lists_every_method_of_the_schema_and_leaves_out_cells_that_said_nothing() -> None:
    cells = [
        *ARCHIVE_CELLS,
        cell("thread/read", "rolled-back", "minimal", {}, outcome="not run"),
        cell(
            "item/commandExecution/requestApproval",
            "idle",
            "decision=accept",
            None,
            kind="approval",
            result={},
        ),
    ]
    book = learn_book(record("0.171.0", cells, ["thread/archive", "thread/read", "fs/remove"]))
    assert sorted(book.methods) == ["fs/remove", "thread/archive", "thread/read"]
    assert book.cells_of("thread/read") == [] and not book.knows("fs/remove")
    assert "item/commandExecution/requestApproval" not in book.methods


def test_no_book_is_learned_from_an_exploration_that_could_not_run() -> None:
    with pytest.raises(BookNotLearned, match="could not run: no codex"):
        learn_book("the exploration could not run: no codex")


def test_a_book_beside_a_learned_profile_is_loaded_with_it(tmp_path: Path) -> None:
    path = profile_with_book("0.171.0", tmp_path, ARCHIVE_CELLS)
    assert book_path(path) == tmp_path / "0.171.0.book.json"
    profile = load_profile(path=path)
    assert profile.book is not None and profile.book.knows("thread/archive")


@pytest.mark.parametrize("version", available_versions())
def test_a_checked_in_profile_has_no_book_and_loads_as_before(version: str) -> None:
    assert load_profile(version).book is None


def test_a_broken_book_is_refused_in_one_line_naming_the_file_and_the_field(
    tmp_path: Path,
) -> None:
    path = profile_with_book("0.171.0", tmp_path, ARCHIVE_CELLS)
    beside = book_path(path)
    edit(beside, lambda d: d["methods"]["thread/archive"][1]["error"].update(code="bad"))
    with pytest.raises(ProfileError) as refused:
        load_profile(path=path)
    message = str(refused.value)
    assert "\n" not in message
    assert str(beside) in message
    assert "at `$.methods[...][1].error.code`" in message
    beside.write_text("{")
    with pytest.raises(ValueError, match=r"book\.json: invalid JSON at line 1"):
        load_book(beside)


def test_a_book_in_the_profiles_folder_is_not_listed_as_a_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile_with_book("0.171.0", tmp_path, ARCHIVE_CELLS)
    monkeypatch.setattr("codex_probe.fake_appserver.profile.PROFILES_DIR", tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "0.171.0.book.json",
        "0.171.0.json",
        "wire-0.171.0.json",
    ]
    assert available_versions() == ["0.171.0"]
