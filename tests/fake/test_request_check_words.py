"""A field whose schema names no JSON type (a `$ref` to a path) is checked by the types
serde's words for it name, as the release refuses a value of another type."""

from __future__ import annotations

from codex_probe.fake_appserver.answer_book import AnswerBook, FieldRule, Wording
from codex_probe.fake_appserver.request_check import refusal_of, types_named

WRONG_TYPE = Wording(
    kind="invalid type",
    code=-32600,
    message="Invalid request: invalid type: {got}, expected {expected}",
    evidence="fs/copy none sourcePath of the wrong type",
)


def test_serdes_words_name_the_json_types_a_field_takes() -> None:
    assert types_named("path string") == ["string"]
    assert types_named("a sequence") == ["array"]
    assert types_named("struct ClientInfo") == ["object"]
    assert types_named("u32") == ["integer"]
    assert types_named("string or map") is None
    assert types_named(None) is None


def test_a_path_field_refuses_a_number_in_the_releases_words() -> None:
    path = FieldRule(name="sourcePath", required=True, types=None, expected="path string")
    book = AnswerBook(
        format=1,
        version="0.165.0",
        learned_from="test",
        methods={},
        params={"fs/copy": [path]},
        wordings=[WRONG_TYPE],
    )
    assert refusal_of(book, "fs/copy", {"sourcePath": 42}) == (
        -32600,
        "Invalid request: invalid type: integer `42`, expected path string",
    )
    assert refusal_of(book, "fs/copy", {"sourcePath": "/w/a"}) is None
