"""A release's answer book: what it answered to every method of its schema, per thread
state and variant, learned from an exploration (`codex-probe learn`), for the fake to
answer every method its scripted handlers do not know as the release did.

It lives beside its profile, `VERSION.book.json` beside `VERSION.json` (`book_path`); a
profile without one (the checked-in ones) answers only its scripted methods. Its JSON
schema is generated from this model (`python -m codex_probe.fake_appserver.answer_book`
prints it: profiles/book.schema.json); `load_book` decodes a file into the model or
refuses it in one line naming the file and the field.

Every cell keeps the exploration's placeholders (probes/explore/fixtures.py: `{{thread}}`,
`{{turn}}`, `{{work}}`...) in its params, its answer and its notifications; the fake fills
them with its own values (book_lookup.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Literal

import msgspec

from codex_probe.fake_appserver.json_files import FileRefused, decode_file, schema_text_of
from codex_probe.fake_appserver.profile_model import Evidence, Model
from codex_probe.harness.files import write_text_atomically

BOOK_FORMAT: Literal[1] = 1
BOOK_SUFFIX = ".book.json"
SCHEMA_FILE = Path(__file__).resolve().parent / "profiles" / "book.schema.json"

Outcome = Literal["answered", "refused", "unanswered"]
CellKind = Literal["valid", "invalid"]
# The variant `FIELD of an id nobody has`: a field that names one of the thread's turns
# sent naming a turn nobody has (probes/explore/plan.py).
UNKNOWN_TURN = "of an id nobody has"
# The variant `with FIELD`: the minimal call with one optional field added.
WITH = "with "


class AnswerBookError(FileRefused):
    """An answer book that cannot be read or does not have the book's shape."""


class RecordedError(Model, frozen=True):
    """A JSON-RPC error as the release answered it (placeholders kept)."""

    code: int
    message: str
    data: Any = None


class RecordedNotification(Model, frozen=True):
    method: str
    params: Any = None


class BookCell(Model, frozen=True):
    """One call of the exploration and what the release did: its answer (`result`), its
    refusal (`error`), or nothing within the exploration's deadline (`unanswered`); and the
    notifications the call caused, in the order they came."""

    state: str  # none, idle, in-flight, compacted, archived, forked, rolled-back, unloaded
    variant: str  # minimal, full, FIELD=VALUE, without FIELD, ... (probes/explore/plan.py)
    kind: CellKind
    params: Any  # as sent, placeholders kept; None: no params at all
    outcome: Outcome
    result: Any = None
    error: RecordedError | None = None
    notifications: list[RecordedNotification] = msgspec.field(default_factory=list)


WordingKind = Literal["missing field", "invalid type", "unknown variant", "malformed id"]


class Wording(Model, frozen=True):
    """How the release words a refusal of one kind: a template with `{field}` (missing
    field), `{got}` and `{expected}` (invalid type), `{value}` and `{expected}` (unknown
    variant), `{char}` and `{position}` (a thread id that is no UUID), learned from the
    exploration's invalid calls."""

    kind: WordingKind
    code: int
    message: str
    evidence: Evidence  # the cell it was learned from

    def filled(self, **values: str) -> tuple[int, str]:
        message = self.message
        for name, value in values.items():
            message = message.replace("{" + name + "}", value)
        return self.code, message


class FieldRule(Model, frozen=True):
    """What the release takes in one field of a method's params (request_check.py)."""

    name: str
    # Refused when absent: the release said so for a call without it (else the schema's
    # `required`, where no such call was made).
    required: bool
    types: list[str] | None  # the JSON types the schema lets it hold; None: any
    # serde's words for what the field takes, as the release refused a wrong type in it.
    expected: str | None = None
    # An enumerated field: the values the release named when it refused an unknown one
    # (of the key `tag` of an object, for a tagged union), and its words for them.
    values: list[str] | None = None
    tag: str | None = None
    values_expected: str | None = None
    # The values are those of the items of a list the field holds.
    in_list: bool = False
    # The key each object the field holds (or each of its list's) must have: the tag of a
    # tagged union (`type` of an input item), read from the schema.
    item_tag: str | None = None
    # The release's whole words for a value of a type the field does not take, where they
    # name neither the value nor a type (serde's untagged enums: `data did not match any
    # variant of untagged enum ThreadListCwdFilter`).
    wrong_type: Wording | None = None


class AnswerBook(Model, frozen=True):
    format: Literal[1]
    version: str
    learned_from: Evidence  # which exploration, how many cells
    # Every client method of the release's schema, even one without a cell (it was not
    # sent): the fake then answers it as the release answers a method it cannot run.
    methods: dict[str, list[BookCell]]
    # Per method, the fields of its params in the schema's order (none: not checked).
    params: dict[str, list[FieldRule]] = msgspec.field(default_factory=dict)
    wordings: list[Wording] = msgspec.field(default_factory=list)
    # Per method, how the release refuses a `threadId` that is no UUID (its handler's
    # words, which differ by method: a thread id, a session id).
    malformed_ids: dict[str, Wording] = msgspec.field(default_factory=dict)

    def wording(self, kind: WordingKind) -> Wording | None:
        return next((w for w in self.wordings if w.kind == kind), None)

    def cells_of(self, method: str) -> list[BookCell]:
        return self.methods.get(method, [])

    def knows(self, method: str) -> bool:
        return bool(self.methods.get(method))


def book_path(profile_path: Path) -> Path:
    """Where the answer book of the profile at `profile_path` lives: VERSION.book.json."""
    return profile_path.with_name(profile_path.stem + BOOK_SUFFIX)


def is_book_name(name: str) -> bool:
    return name.endswith(BOOK_SUFFIX)


def load_book(path: Path) -> AnswerBook:
    """The answer book in `path`, or AnswerBookError naming the file and the field."""
    return decode_file(path, AnswerBook, AnswerBookError)


def write_book(book: AnswerBook, path: Path) -> Path:
    """Write `book` to `path` (atomically); `path`."""
    text = json.dumps(msgspec.to_builtins(book), indent=1, ensure_ascii=False) + "\n"
    write_text_atomically(path, text)
    return path


def schema_text() -> str:
    return schema_text_of(AnswerBook)


if __name__ == "__main__":
    # Imported by name: run as __main__, the model's titles would name __main__.
    from codex_probe.fake_appserver.answer_book import schema_text as named_schema_text

    sys.stdout.write(named_schema_text())
