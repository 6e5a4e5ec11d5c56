"""The fake's answers from its profile's answer book: a request's thread state, the cell
that answers it (book_lookup.py), and the cell's answer, refusal or silence and its
notifications, filled with the fake's own values.

The placeholders (probes/explore/fixtures.py) get, first, the text they matched in the
request; else the fake's own: `{{thread}}` and `{{unknown}}` the request's thread id,
`{{turn}}` that thread's last turn, `{{work}}` the fake's working folder (codex's cwd,
where the exploration's calls point), `{{root}}` the folder above the home,
`{{wiretap}}` the model provider's origin.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from codex_probe.fake_appserver.answer_book import WITH, AnswerBook, BookCell, Outcome
from codex_probe.fake_appserver.book_echoes import (
    echo_answer,
    echo_words,
    unasked_parts_dropped,
)
from codex_probe.fake_appserver.book_lookup import (
    answering_cell,
    fill,
    gated_refusal,
    refused_for_its_values,
    same_params_cell,
    unknown_turn_cell,
)
from codex_probe.fake_appserver.book_values import (
    cells_of_sent_values,
    effects,
    full_answered,
    ignores_value,
    minimal_answer,
)
from codex_probe.fake_appserver.request_check import refusal_of
from codex_probe.fake_appserver.store import ThreadStore
from codex_probe.fake_appserver.thread_states import ARCHIVED, IN_FLIGHT, NEW, ThreadStates
from codex_probe.fake_appserver.threads import LoadedThread

# Scripted methods whose answer is the release's own, whatever the fake holds: the book's.
BOOK_FIRST = frozenset({"model/list"})
# Scripted methods whose answer echoes what the params sent (`echoed`).
ECHOED = frozenset({"thread/start", "thread/resume", "thread/fork"})
# The answer's keys that say what sandbox a thread got.
DEFAULT_SANDBOX_KEYS = ["sandbox", "activePermissionProfile"]


@dataclass(frozen=True)
class BookAnswer:
    """What the fake sends for a request the book answers."""

    outcome: Outcome
    result: Any = None
    error: tuple[int, str, Any] | None = None
    notifications: list[tuple[str, Any]] = field(default_factory=list)
    cell: str = ""  # `STATE VARIANT` of the cell that answered


@dataclass
class BookAnswers:
    book: AnswerBook
    loaded: dict[str, LoadedThread]
    store: ThreadStore
    codex_home: Path
    provider_url: str
    # What the configuration leaves to codex's defaults (config.ProviderConfig).
    left_to_codex: tuple[str, ...] = ()
    states: ThreadStates = field(default_factory=ThreadStates)

    def __post_init__(self) -> None:
        self.pages_by_limit = pages_by_limit(self.book)

    def answer(
        self, method: str, params: Any, *, scripted: bool, experimental: bool = False
    ) -> BookAnswer | None:
        """The book's answer to `method` with `params`, None where the fake's handler
        answers. Params the release refused as they are get its refusal, and params its
        schema does not take its words for them (request_check.py), whatever the method;
        the book answers the rest of a method the fake has no handler for, and of a
        scripted one only where the handler cannot know what the release does: the
        release's own list (BOOK_FIRST), a thread in a state the handler does not know
        (archived), or one it refuses on a thread that has had no turn (new: a fork or a
        resume of a thread codex has written nothing of, 0.167.2). A request that needs
        the experimental API the client did not declare gets the release's refusal of it
        in every state (`gated_refusal`); one naming a turn the thread does not have, the
        release's answer for a turn nobody has."""
        state = self.state_of(params)
        answers_all = (
            not scripted
            or method in BOOK_FIRST
            or state == ARCHIVED
            or (state == NEW and self._refused_when_new(method))
        )
        turns = self.turns_of(params)
        exact = same_params_cell(self.book, method, state, params, turns)
        if exact is not None and (answers_all or exact[0].outcome == "refused"):
            return self._filled(method, state, exact, params)
        refused = refusal_of(self.book, method, params)
        if refused is not None:
            return BookAnswer("refused", error=(*refused, None), cell="checked")
        gated = None if experimental else gated_refusal(self.book, method, params)
        if gated is not None:
            return self._filled(method, state, (gated, {}), params)
        unknown = unknown_turn_cell(self.book, method, state, params, turns)
        if unknown is not None and (answers_all or unknown[0].outcome == "refused"):
            return self._filled(method, state, unknown, params)
        if not answers_all:
            own = refused_for_its_values(self.book, method, state, params)
            return None if own is None else self._filled(method, state, (own, {}), params)
        if not self.book.knows(method):
            return None
        found = answering_cell(self.book, method, state, params, turns)
        return None if found is None else self._filled(method, state, found, params)

    def _refused_when_new(self, method: str) -> bool:
        """Whether the release refused the minimal call of `method` on a new thread."""
        return any(
            c.state == NEW and c.variant == "minimal" and c.outcome == "refused"
            for c in self.book.cells_of(method)
        )

    def value_notifications(
        self, method: str, params: Any, state: str, kinds: frozenset[str], thread: str | None
    ) -> list[tuple[str, Any]]:
        """The notifications of `kinds` (those outside the lifecycle) the release sent for
        a value the request sends and not for the minimal call (0.144.5 warns of a
        `serviceTier` it does not advertise with thread/start), filled as the fake's:
        `{{thread}}` the thread the call is about, or the one its answer made."""
        minimal, cells = cells_of_sent_values(self.book, method, state, params)
        if minimal is None:
            return []
        plain = {n.method for n in minimal.notifications}
        values = self._own_values(params)
        if thread is not None:
            values["thread"] = thread
        found: list[tuple[str, Any]] = []
        for cell in cells:
            # The thread the cell's call made is named as it was then (no placeholder
            # stands for it): it is the thread this call made.
            made = _made_thread(cell.result)
            for note in cell.notifications:
                filled = fill(echo_answer(note.params, cell.params, params, {}), values)
                if made is not None and thread is not None:
                    filled = _renamed(filled, made, thread)
                sent = (note.method, filled)
                if note.method in kinds and note.method not in plain and sent not in found:
                    found.append(sent)
        return found

    def withholds(self, method: str, state: str, notification: str) -> bool:
        """Whether the release does not send `notification` with `method` in `state`,
        though it sends it with the method elsewhere: the book's answered calls in that
        state lack it where one in another state has it (0.168.0 warns of the model's
        metadata with a turn/start on an idle thread, not with one while a turn is in
        flight). No call of the method answered in `state`: the book does not say."""
        answered = [c for c in self.book.cells_of(method) if c.outcome == "answered"]
        here = [c for c in answered if c.state == state and c.kind == "valid"]
        if not here:
            return False
        sends = [c for c in answered if any(n.method == notification for n in c.notifications)]
        return bool(sends) and not any(c.state == state for c in sends)

    def state_of(self, params: Any) -> str:
        thread_id = _thread_id(params)
        loaded = self.loaded.get(thread_id) if thread_id is not None else None
        return self.states.state_of(
            thread_id,
            loaded=loaded is not None,
            active=loaded is not None and loaded.active is not None,
            stored=thread_id is not None and _is_stored(self.store, thread_id),
            had_turns=loaded is None or bool(loaded.listed_turns()),
        )

    def turns_of(self, params: Any) -> frozenset[str] | None:
        """The ids of the turns of the request's thread, None where the fake has no such
        thread (loaded, or stored: unloaded, archived)."""
        thread_id = _thread_id(params)
        if thread_id is None:
            return None
        loaded = self.loaded.get(thread_id)
        if loaded is not None:
            turns = loaded.listed_turns()
        else:
            record = _stored(self.store, thread_id)
            if record is None:
                return None
            turns = record.get("turns") or []
        return frozenset(str(turn["id"]) for turn in turns if "id" in turn)

    def echoed(self, method: str, params: Any, result: Any, state: str | None = None) -> Any:
        """A handler's answer completed from the book: the top-level fields the release's
        answer to the same call has and the handler does not build (thread/read's
        `readState`); and for thread/start, resume and fork what the params sent change
        in it as the book shows the release's answer changes (its sandbox and approval
        policy in its own form, `effects`), and the booleans sent that the thread carries
        (`ephemeral`) as sent. `state`: the thread's before the call (else its state now)."""
        if not isinstance(result, dict):
            return result
        state = state or self.state_of(params)
        values = self._own_values(params)
        found = answering_cell(self.book, method, state, params, self.turns_of(params))
        release = found[0].result if found is not None and found[0].outcome == "answered" else {}
        lacking = (
            {k: v for k, v in release.items() if k not in result}
            if isinstance(release, dict)
            else {}
        )
        changed: dict[str, Any] = {}
        if method in ECHOED and isinstance(params, dict):
            full = full_answered(self.book, method, state)
            without = minimal_answer(self.book, method, state)
            retyped = {} if full is None else _retyped(result, full, params, without)
            changed = {
                **retyped,
                **self._defaults(method, state, params),
                **effects(self.book, method, state, params),
            }
        echoed = {**result, **{k: fill(v, values) for k, v in {**lacking, **changed}.items()}}
        thread = echoed.get("thread")
        if method in ECHOED and isinstance(thread, dict) and isinstance(params, dict):
            sent = {k: v for k, v in params.items() if isinstance(v, bool) and k in thread}
            echoed["thread"] = {**thread, **sent}
        return echoed

    def _defaults(self, method: str, state: str, params: dict[str, Any]) -> dict[str, Any]:
        """Where the configuration leaves the sandbox or the approval policy to codex and
        the call does not send it, or sends a value the release ignores there (a loaded
        thread's resume): what the release answers then (the book's minimal call, made in
        a home that leaves both to codex), in place of the wire template's, which was
        captured in a home that sets them."""
        minimal = minimal_answer(self.book, method, state)
        keys: list[str] = []
        for setting, name, answered in (
            ("sandbox_mode", "sandbox", DEFAULT_SANDBOX_KEYS),
            ("approval_policy", "approvalPolicy", ["approvalPolicy"]),
        ):
            ignored = ignores_value(self.book, method, state, params, name, answered)
            if setting in self.left_to_codex and (name not in params or ignored):
                keys += answered
        return {key: minimal[key] for key in keys if key in minimal}

    def _filled(
        self, method: str, state: str, found: tuple[BookCell, dict[str, str]], params: Any
    ) -> BookAnswer:
        """`cell`'s answer filled with the fake's values, and the values the cell sent
        that the release echoed (book_echoes.py) swapped for the request's."""
        cell, captured = found
        values = {**self._own_values(params), **captured}
        error = None
        if cell.error is not None:
            subject = cell.variant.removeprefix(WITH) if cell.variant.startswith(WITH) else None
            message = echo_words(cell.error.message, cell.params, params, subject)
            error = (cell.error.code, str(fill(message, values)), fill(cell.error.data, values))
        without = minimal_answer(self.book, method, state)
        result = self._own_lineage(fill(_own_answer(cell, params, without), values), params)
        return BookAnswer(
            outcome=cell.outcome,
            result=first_page(result, params) if self.pages_by_limit else result,
            error=error,
            notifications=[
                (n.method, fill(echo_answer(n.params, cell.params, params, {}), values))
                for n in cell.notifications
            ],
            cell=f"{cell.state} {cell.variant}",
        )

    def _own_lineage(self, result: Any, params: Any) -> Any:
        """`result` with the `forkedFromId` of the request's thread the fake's own: the
        exploration asks a call that may change its thread on a copy (a fork), so the
        book's answers name a parent where the request's thread may have none."""
        thread = result.get("thread") if isinstance(result, dict) else None
        thread_id = _thread_id(params)
        if not isinstance(thread, dict) or "forkedFromId" not in thread or thread_id is None:
            return result
        if thread.get("id") != thread_id:
            return result
        record = self.loaded[thread_id].record if thread_id in self.loaded else None
        record = record or _stored(self.store, thread_id)
        if record is None:
            return result
        return {**result, "thread": {**thread, "forkedFromId": record.get("forked_from")}}

    def _own_values(self, params: Any) -> dict[str, str]:
        thread_id = _thread_id(params)
        values = {
            "work": os.getcwd(),
            "root": str(self.codex_home.parent.parent),
            "wiretap": self.provider_url,
            "cell": "fake",
        }
        if thread_id is not None:
            values["thread"] = values["unknown"] = thread_id
            turn = self._last_turn(thread_id)
            if turn is not None:
                values["turn"] = turn
        return values

    def _last_turn(self, thread_id: str) -> str | None:
        loaded = self.loaded.get(thread_id)
        turns = loaded.listed_turns() if loaded is not None else []
        return str(turns[-1]["id"]) if turns and "id" in turns[-1] else None


def _own_answer(cell: BookCell, params: Any, without: dict[str, Any]) -> Any:
    """`cell`'s answer made the request's (book_echoes.py): the values it echoes, without
    the parts the request does not ask for."""
    echoed = echo_answer(cell.result, cell.params, params, without)
    return unasked_parts_dropped(echoed, cell.params, params, without)


def _retyped(
    result: dict[str, Any], full: BookCell, params: dict[str, Any], without: dict[str, Any]
) -> dict[str, Any]:
    """The values the release echoed from the full call's params (book_echoes.py), at
    the top of the answer or one object down (the thread's `threadSource`), where the
    handler's answer holds another kind of value (a `serviceTier` sent, left null)."""
    echoed = echo_answer(full.result, full.params, params, without)
    if not isinstance(echoed, dict) or not isinstance(full.result, dict):
        return {}
    return _retyped_in(result, echoed, full.result, full.params)


def _retyped_in(
    result: dict[str, Any], echoed: dict[str, Any], answered: dict[str, Any], sent: Any
) -> dict[str, Any]:
    if not isinstance(sent, dict):
        return {}
    changed: dict[str, Any] = {}
    for key, value in echoed.items():
        own, recorded = result.get(key), answered.get(key)
        if key in sent and sent[key] == recorded and type(value) is not type(own):
            changed[key] = value
        elif isinstance(value, dict) and isinstance(own, dict) and isinstance(recorded, dict):
            inner = {
                name: part
                for name, part in value.items()
                if name in sent
                and sent[name] == recorded.get(name)
                and type(part) is not type(own.get(name))
            }
            if inner:
                changed[key] = {**own, **inner}
    return changed


def pages_by_limit(book: AnswerBook) -> bool:
    """Whether the release answers a list (`data`, `nextCursor`) a page of `limit` items
    at a time: a call of the book sent `limit` and got that many items and a cursor,
    where another call of the method in the same state got more."""
    for cells in book.methods.values():
        for cell in cells:
            limit = cell.params.get("limit") if isinstance(cell.params, dict) else None
            result = cell.result if cell.outcome == "answered" else None
            if not _is_count(limit) or not _is_list_answer(result):
                continue
            assert isinstance(result, dict)
            if len(result["data"]) != limit or not isinstance(result["nextCursor"], str):
                continue
            more = [
                c
                for c in cells
                if c.state == cell.state
                and _is_list_answer(c.result)
                and len(c.result["data"]) > limit
            ]
            if more:
                return True
    return False


def first_page(result: Any, params: Any) -> Any:
    """`result` (a list answer) cut to the first page the request's `limit` asks for, with
    a cursor to the next where more items follow (the offset, as model/list's)."""
    limit = params.get("limit") if isinstance(params, dict) else None
    if not _is_count(limit) or not _is_list_answer(result) or params.get("cursor") is not None:
        return result
    data = result["data"]
    if len(data) <= limit:
        return result
    return {**result, "data": data[:limit], "nextCursor": str(limit)}


def _is_count(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _is_list_answer(result: Any) -> bool:
    return (
        isinstance(result, dict) and isinstance(result.get("data"), list) and "nextCursor" in result
    )


def runs_input_without_text(book: AnswerBook) -> bool:
    """Whether the release ran a turn/start whose input has no text part (an image, a
    skill...): then the fake runs one too, where its own refusal (errors.turn_without_text)
    would stand in for what no scenario measured."""
    for cell in book.cells_of("turn/start"):
        sent = cell.params.get("input") if isinstance(cell.params, dict) else None
        texts = isinstance(sent, list) and any(
            isinstance(part, dict) and part.get("type") == "text" for part in sent
        )
        if cell.outcome == "answered" and isinstance(sent, list) and not texts:
            return True
    return False


def fork_announced_without_turns(book: AnswerBook) -> bool:
    """Whether the release's thread/started for a fork lists no turns while its answer to
    thread/fork does (the book's forks of a thread with turns)."""
    for cell in book.cells_of("thread/fork"):
        turns = (
            (cell.result or {}).get("thread", {}).get("turns")
            if cell.outcome == "answered"
            else None
        )
        started = [n for n in cell.notifications if n.method == "thread/started"]
        if turns and started:
            announced = (started[0].params or {}).get("thread", {}).get("turns")
            return bool(announced == [])
    return False


def fork_interrupts_turn_in_flight(book: AnswerBook) -> bool:
    """Whether the release's fork of a thread with a turn in flight lists that turn last,
    interrupted (the book's in-flight forks)."""
    for cell in book.cells_of("thread/fork"):
        if cell.state != IN_FLIGHT or cell.outcome != "answered":
            continue
        turns = (cell.result or {}).get("thread", {}).get("turns")
        if turns:
            return bool(turns[-1].get("status") == "interrupted")
    return False


def _made_thread(result: Any) -> str | None:
    thread = result.get("thread") if isinstance(result, dict) else None
    made = thread.get("id") if isinstance(thread, dict) else None
    return made if isinstance(made, str) and "{{" not in made else None


def _renamed(value: Any, old: str, new: str) -> Any:
    """`value` with every text that is `old` made `new`."""
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, list):
        return [_renamed(item, old, new) for item in value]
    if isinstance(value, dict):
        return {key: _renamed(item, old, new) for key, item in value.items()}
    return value


def _thread_id(params: Any) -> str | None:
    thread_id = params.get("threadId") if isinstance(params, dict) else None
    return thread_id if isinstance(thread_id, str) else None


def _is_stored(store: ThreadStore, thread_id: str) -> bool:
    try:
        return store.holds(thread_id)
    except (OSError, ValueError):  # an id that is no file name
        return False


def _stored(store: ThreadStore, thread_id: str) -> dict[str, Any] | None:
    try:
        return store.load(thread_id)
    except (OSError, ValueError):  # an id that is no file name, a file half written
        return None
