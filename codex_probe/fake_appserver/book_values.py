"""What the release's answered calls of a method say about the values a request sends,
beside the one cell that answers it (book_lookup.py): its answer to the minimal call, the
full call that shows what of the params it echoes, the answer keys a value changes, the
cells of the values sent (for what they made codex send), and whether a value is ignored.
Each looks in the request's state, else in `idle` (where the exploration sends every value),
else in `none`."""

from __future__ import annotations

from typing import Any

from codex_probe.fake_appserver.answer_book import WITH, AnswerBook, BookCell
from codex_probe.fake_appserver.book_lookup import FULL, MINIMAL, matches, sets_value
from codex_probe.fake_appserver.thread_states import IDLE, NONE


def minimal_answer(book: AnswerBook, method: str, state: str) -> dict[str, Any]:
    """The release's answer to the minimal call of `method` in `state` (else `idle`, else
    `none`): what it answers with nothing sent ({} where it did not answer one)."""
    pool = _answered_pool(book, method, state)
    minimal = next((c for c in pool if c.variant == MINIMAL), None)
    return minimal.result if minimal is not None and isinstance(minimal.result, dict) else {}


def full_answered(book: AnswerBook, method: str, state: str) -> BookCell | None:
    """The full call of `method` in `state` (else `idle`, else `none`) where the release
    answered it: the cell that shows what of the params its answer echoes."""
    answered = [
        c
        for c in book.cells_of(method)
        if c.variant == FULL and c.outcome == "answered" and isinstance(c.result, dict)
    ]
    return next((c for nearby in (state, IDLE, NONE) for c in answered if c.state == nearby), None)


def _answered_pool(book: AnswerBook, method: str, state: str) -> list[BookCell]:
    answered = [
        c for c in book.cells_of(method) if c.outcome == "answered" and isinstance(c.result, dict)
    ]
    pool = [c for c in answered if c.state == state] or [c for c in answered if c.state == IDLE]
    return pool or [c for c in answered if c.state == NONE]


def effects(book: AnswerBook, method: str, state: str, params: Any) -> dict[str, Any]:
    """What the enumerated values `params` sends change in the release's answer: for each
    such field, the answer's top-level keys (but the thread) in which its `FIELD=VALUE`
    cell's answer differs from the minimal call's (placeholders kept); a value the state
    has no cell of, as `idle` shows it (a fork's values are sent on an idle thread only).
    How codex echoes a sandbox or an approval policy sent, in its own form."""
    if not isinstance(params, dict):
        return {}
    pools = [_answered_pool(book, method, state), _answered_pool(book, method, IDLE)]
    found: dict[str, Any] = {}
    for name, sent in params.items():
        for pool in pools:
            minimal = next((c for c in pool if c.variant == MINIMAL), None)
            cell = next((c for c in pool if sets_value(c, name, sent)), None)
            if minimal is None or cell is None:
                continue
            for key, value in cell.result.items():
                if key != "thread" and minimal.result.get(key) != value:
                    found[key] = value
            break
    return found


def cells_of_sent_values(
    book: AnswerBook, method: str, state: str, params: Any
) -> tuple[BookCell | None, list[BookCell]]:
    """The minimal call of `method` in `state` (else `idle`, else `none`) where the release
    answered it, and the answered cells of that state that sent a value the request sends:
    a `FIELD=VALUE` cell of its value, a `with FIELD` cell of the same value."""
    pool = _answered_pool(book, method, state)
    minimal = next((c for c in pool if c.variant == MINIMAL), None)
    if minimal is None or not isinstance(params, dict):
        return minimal, []
    found = []
    for cell in pool:
        field, equals, _ = cell.variant.partition("=")
        if equals and sets_value(cell, field, params.get(field)):
            found.append(cell)
        elif cell.variant.startswith(WITH) and isinstance(cell.params, dict):
            name = cell.variant.removeprefix(WITH)
            if name in params and matches(cell.params.get(name), params[name], {}):
                found.append(cell)
    return minimal, found


def ignores_value(
    book: AnswerBook, method: str, state: str, params: Any, name: str, keys: list[str]
) -> bool:
    """Whether the release answers `keys` alike with and without the value the request
    sends in `name`, by its `FIELD=VALUE` cell of that value in `state` (else in `idle`,
    where the exploration sends every value): a loaded thread's resume keeps the thread's
    sandbox, whatever is sent."""
    if not isinstance(params, dict) or name not in params:
        return False
    for pool in (_answered_pool(book, method, state), _answered_pool(book, method, IDLE)):
        minimal = next((c for c in pool if c.variant == MINIMAL), None)
        cell = next((c for c in pool if sets_value(c, name, params[name])), None)
        if minimal is not None and cell is not None:
            return all(cell.result.get(key) == minimal.result.get(key) for key in keys)
    return False
