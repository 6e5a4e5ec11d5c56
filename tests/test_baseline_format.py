"""The one baseline format both gates read: [[expected]] tables of codex, id, reason and
the gate's own keys, refused entry by entry."""

from __future__ import annotations

from typing import Any

import pytest

from codex_probe.rig.baseline import BaselineError, ExpectedEntry, GateKeys, parse_entries

KEYS = GateKeys(
    required=("failure",),
    defaults={"backend": "real"},
    choices={"backend": ("real", "fake")},
    distinguishing=("backend",),
)


def entry(**values: Any) -> dict[str, Any]:
    return {"codex": "0.171.0", "id": "X-001", "reason": "why", "failure": "x", **values}


def parse(*tables: dict[str, Any]) -> tuple[ExpectedEntry, ...]:
    return parse_entries({"expected": list(tables)}, KEYS, source="b.toml")


def test_an_entry_holds_the_common_keys_trimmed_and_the_gates_keys_as_written() -> None:
    (read,) = parse(entry(codex=" 0.171.0 ", reason="why ", failure="x "))
    assert read == ExpectedEntry(
        "b.toml: expected #1", "0.171.0", "X-001", "why", {"failure": "x ", "backend": "real"}
    )


def test_entries_told_apart_by_a_distinguishing_key_are_not_repeats() -> None:
    read = parse(entry(), entry(backend="fake"))
    assert [e.values["backend"] for e in read] == ["real", "fake"]


def test_a_repeat_names_both_entries_and_what_they_share() -> None:
    with pytest.raises(BaselineError) as caught:
        parse(entry(), entry(backend="fake"), entry(backend="fake", reason="again"))
    assert str(caught.value) == (
        "b.toml: expected #3: repeats expected #2 (X-001 on 0.171.0, backend fake)"
    )


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        (entry(codex=0.171), "expected #1: 'codex' must be a non-empty string"),
        (entry(id=""), "expected #1: 'id' must be a non-empty string"),
        ({"codex": "1", "id": "X", "failure": "x"}, "expected #1: 'reason' is missing"),
        (entry(backend="docker"), "expected #1: backend must be real or fake, got 'docker'"),
        (
            entry(verdict="changed"),
            "expected #1: unknown key(s) verdict; known: codex, id, reason, failure, backend",
        ),
        ("not a table", "expected #1: not a table"),
    ],
)
def test_a_broken_entry_is_refused_naming_the_file_and_the_entry(table: Any, problem: str) -> None:
    with pytest.raises(BaselineError) as caught:
        parse(table)
    assert str(caught.value) == f"b.toml: {problem}"


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ({"expect": []}, "unknown key(s) expect; a baseline holds only [[expected]] tables"),
        ({"expected": {"codex": "1"}}, "'expected' must be an array of tables ([[expected]])"),
    ],
)
def test_a_document_of_another_shape_is_refused(document: dict[str, Any], problem: str) -> None:
    with pytest.raises(BaselineError) as caught:
        parse_entries(document, KEYS, source="b.toml")
    assert str(caught.value) == f"b.toml: {problem}"


def test_an_empty_baseline_expects_nothing() -> None:
    assert parse_entries({}, KEYS, source="b.toml") == ()
