"""Learn a release's answer book (fake_appserver/answer_book.py) from its exploration's
record (probes/explore/record.py): every call it made, per method, with what the release
answered, refused or left unanswered, and the notifications it caused; placeholders kept.

Cells that did not run say nothing about the release, and command approvals are server
requests (what the client answered), not calls the fake answers: neither is in the book.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codex_probe.fake_appserver.answer_book import (
    BOOK_FORMAT,
    AnswerBook,
    BookCell,
    RecordedError,
    RecordedNotification,
    book_path,
    write_book,
)
from codex_probe.probes.releases.learn.book_rules import (
    malformed_id_wordings,
    params_rules,
    wordings,
)
from codex_probe.probes.runner.plan import LearnFailed

KEPT_OUTCOMES = ("answered", "refused", "unanswered")
KEPT_KINDS = ("valid", "invalid")


class BookNotLearned(LearnFailed):
    """The exploration's record cannot make a book (it did not run, or is no record)."""


def learn_book(record: dict[str, Any] | str | None, schema_dir: Path | None = None) -> AnswerBook:
    """The answer book of the exploration `record` (or BookNotLearned: why not), with what
    the fake checks in a request from the release's schema in `schema_dir` and the
    record's refusals (book_rules.py; nothing is checked without a schema)."""
    if record is None:
        raise BookNotLearned("the release run explored nothing")
    if isinstance(record, str):
        raise BookNotLearned(record)
    methods: dict[str, list[BookCell]] = {str(m): [] for m in record.get("methods") or []}
    kept = 0
    for cell in record.get("cells") or []:
        if cell.get("outcome") not in KEPT_OUTCOMES or cell.get("kind") not in KEPT_KINDS:
            continue
        methods.setdefault(str(cell["method"]), []).append(_book_cell(cell))
        kept += 1
    if not kept:
        raise BookNotLearned("the exploration has no cell that ran")
    version = str(record.get("version", "?"))
    return AnswerBook(
        format=BOOK_FORMAT,
        version=version,
        learned_from=(
            f"codex-probe explore of codex-cli {version} (seed {record.get('seed', 0)}): "
            f"{kept} cells of {len(methods)} methods"
        ),
        methods=methods,
        params=params_rules(schema_dir, record),
        wordings=wordings(record),
        malformed_ids=malformed_id_wordings(record),
    )


def _book_cell(cell: dict[str, Any]) -> BookCell:
    error = cell.get("error")
    return BookCell(
        state=str(cell["state"]),
        variant=str(cell["variant"]),
        kind=cell["kind"],
        params=cell.get("params"),
        outcome=cell["outcome"],
        result=cell.get("result"),
        error=None
        if error is None
        else RecordedError(int(error["code"]), str(error["message"]), error.get("data")),
        notifications=[
            RecordedNotification(str(n["method"]), n.get("params"))
            for n in cell.get("notifications") or []
        ],
    )


def write_book_beside(
    record: dict[str, Any] | str | None, schema_dir: Path | None, profile_path: Path
) -> Path:
    """Learn the book of `record` (and the schema in `schema_dir`) and write it beside the
    profile at `profile_path`."""
    return write_book(learn_book(record, schema_dir), book_path(profile_path))
