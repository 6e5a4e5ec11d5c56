"""Which cell of the answer book answers a request, and the cell's answer filled in.

The cells of the request's method in its thread's state (thread_states.py) are tried in
turn, the first way that finds one wins:

1. the same params: a cell's params with each placeholder (`{{thread}}`, `{{work}}`...)
   standing for any text (an id's for a UUID; `{{turn}}` for a turn the thread has,
   `{{unknown}}` for none it has, where the fake knows the thread's turns), the text it
   stood for kept to fill the answer (for a fork, a cell of `idle` after those of
   `forked`); a refused (invalid) cell of any state too, as codex refuses those before
   any handler runs; then the same params less the fields sent `false`, null or empty;
2. a refused cell of an enumerated value the request sends (way 5), as codex refuses a
   call for any one value it refuses;
3. the same set of fields (one sent `false`, null or empty as if left out);
4. the full call, where the release refused it for the fields its message names
   (book_echoes.py) and the request sends them all too; a `with FIELD` call refused
   where the minimal one was answered, for a request that sends FIELD;
5. an enumerated field with the value the request sends (`FIELD=VALUE`: the same value,
   or for a tagged value the same `type` or the same one key, for a list the same kinds
   of items);
6. the full call if the request sends a field the minimal call lacks and its params are
   no farther from the request's than the minimal call's (`_distance`), but for a full
   call refused for fields the request does not send (while the minimal one was
   answered); else the minimal one.

A state with no valid cell of the method borrows those of `idle`, then of `none` (a
method that takes no thread has cells in `none` only).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from codex_probe.fake_appserver.answer_book import UNKNOWN_TURN, WITH, AnswerBook, BookCell
from codex_probe.fake_appserver.book_echoes import refusal_causes
from codex_probe.fake_appserver.thread_states import FORKED, IDLE, NONE

PLACEHOLDER = re.compile(r"\{\{([a-z]+)\}\}")
# The placeholders that stand for an id (probes/explore/fixtures.py): a UUID, so that a
# malformed id is not taken for one and gets the release's refusal of it.
IDS = frozenset({"thread", "turn", "unknown"})
ID_TEXT = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
ANY_TEXT = ".+?"
MINIMAL, FULL = "minimal", "full"


def answering_cell(
    book: AnswerBook, method: str, state: str, params: Any, turns: frozenset[str] | None = None
) -> tuple[BookCell, dict[str, str]] | None:
    """The cell that answers `method` with `params` in `state`, and the values its
    placeholders matched in the request (None: the book has no cell of the method);
    `turns`: the ids of the thread's turns, where the fake knows them."""
    cells = book.cells_of(method)
    if not cells:
        return None
    exact = same_params_cell(book, method, state, params, turns)
    if exact is not None:
        return exact
    pool = _valid_in(cells, state) or _valid_in(cells, IDLE) or _valid_in(cells, NONE)
    if not pool:
        pool = cells
    pool = _with_idle_values(cells, pool)
    chosen = (
        _refused_value([*pool, *_minimal_of(cells, IDLE)], params)
        or _same_fields(pool, params)
        or _refused_for_what_it_sends(pool, params)
        or _same_value(pool, params)
        or _minimal_or_full(pool, params)
    )
    return chosen, {}


def same_params_cell(
    book: AnswerBook, method: str, state: str, params: Any, turns: frozenset[str] | None = None
) -> tuple[BookCell, dict[str, str]] | None:
    """The cell of `method` in `state` (or a refused one of any state) whose params are
    the request's (way 1 above), and what its placeholders matched; `turns`: the ids of
    the thread's turns, where the fake knows them."""
    cells = book.cells_of(method)
    near = [c for nearby in nearby_states(state) for c in cells if c.state == nearby]
    refusals = [c for c in cells if c.kind == "invalid" and c not in near]
    for sent in _as_sent_and_asked(params):
        for candidate in [*near, *refusals]:
            captured: dict[str, str] = {}
            if matches(candidate.params, sent, captured) and _turns_agree(captured, turns):
                return candidate, captured
    return None


def _as_sent_and_asked(params: Any) -> list[Any]:
    """The request's params, then (where it sends a field `false`, null or empty) without
    those fields (`_asked`)."""
    if not isinstance(params, dict):
        return [params]
    asked = _asked_params(params)
    return [params] if asked == params else [params, asked]


def _turns_agree(captured: dict[str, str], turns: frozenset[str] | None) -> bool:
    """Whether a `{{turn}}` matched a turn the thread has and an `{{unknown}}` none."""
    if turns is None:
        return True
    turn_known = "turn" not in captured or captured["turn"] in turns
    return turn_known and captured.get("unknown") not in turns


def unknown_turn_cell(
    book: AnswerBook, method: str, state: str, params: Any, turns: frozenset[str] | None
) -> tuple[BookCell, dict[str, str]] | None:
    """The release's answer to a request naming a turn the thread does not have in a field
    the exploration sent naming a turn nobody has (`turnId of an id nobody has`), in the
    request's state (else `idle`), and the id it named for `{{unknown}}`: codex answers
    for the turn it cannot find (an empty page, `expected active turn id ...`), whatever
    else the request sends. Not for a thread without turns: the book's have turns, and
    codex looks for a thread's rollout (written with its first turn) before its turns."""
    if not turns or not isinstance(params, dict):
        return None
    cells = book.cells_of(method)
    for name, value in sorted(params.items()):
        if not isinstance(value, str) or value in turns:
            continue
        named = [c for c in cells if c.variant == f"{name} {UNKNOWN_TURN}"]
        for nearby in [*nearby_states(state), IDLE]:
            cell = next((c for c in named if c.state == nearby), None)
            if cell is not None:
                return cell, {"unknown": value}
    return None


def nearby_states(state: str) -> list[str]:
    """`state`, then the one whose cells answer for it too: a fork is an idle thread plus
    what it was forked from."""
    return [state, IDLE] if state == FORKED else [state]


def _with_idle_values(cells: list[BookCell], pool: list[BookCell]) -> list[BookCell]:
    """`pool` and the refused `FIELD=VALUE` cells of `idle` it has no cell of the same
    variant for, where `pool` is of a thread codex holds: the exploration sends each
    enumerated value on an idle thread only, and a value codex refuses there it refuses
    wherever the call runs."""
    if not pool or pool[0].state in (IDLE, NONE):
        return pool
    idle = _valid_in(cells, IDLE)
    if not all(_minimal_answered(cells) for cells in (pool, idle)):
        return pool  # the call itself refused there: a value's refusal says nothing
    have = {c.variant for c in pool}
    borrowed = [
        c for c in idle if "=" in c.variant and c.outcome == "refused" and c.variant not in have
    ]
    return [*pool, *borrowed]


def _valid_in(cells: list[BookCell], state: str) -> list[BookCell]:
    """The valid cells of `state` that answer for any turn the request names: a cell of a
    turn nobody has answers only a request naming such a turn (`unknown_turn_cell`)."""
    return [
        c
        for c in cells
        if c.state == state and c.kind == "valid" and not c.variant.endswith(UNKNOWN_TURN)
    ]


def matches(pattern: Any, value: Any, captured: dict[str, str]) -> bool:
    """Whether `value` is `pattern` with its placeholders standing for any text (a
    placeholder met twice for the same text); the texts put in `captured`."""
    if isinstance(pattern, str):
        if not isinstance(value, str):
            return False
        if "{{" not in pattern:
            return pattern == value
        return _match_text(pattern, value, captured)
    if isinstance(pattern, dict):
        if not isinstance(value, dict) or set(pattern) != set(value):
            return False
        return all(matches(pattern[key], value[key], captured) for key in pattern)
    if isinstance(pattern, list):
        if not isinstance(value, list) or len(pattern) != len(value):
            return False
        return all(matches(p, v, captured) for p, v in zip(pattern, value, strict=True))
    return type(pattern) is type(value) and pattern == value


def _match_text(pattern: str, value: str, captured: dict[str, str]) -> bool:
    parts: list[str] = []
    names: list[str] = []
    last = 0
    for found in PLACEHOLDER.finditer(pattern):
        parts.append(re.escape(pattern[last : found.start()]))
        name = found.group(1)
        if name in names or name in captured:
            known = captured.get(name)
            parts.append(re.escape(known) if known is not None else f"(?P={name})")
        else:
            parts.append(f"(?P<{name}>{ID_TEXT if name in IDS else ANY_TEXT})")
            names.append(name)
        last = found.end()
    parts.append(re.escape(pattern[last:]))
    found_all = re.fullmatch("".join(parts), value, flags=re.DOTALL)
    if found_all is None:
        return False
    captured.update({name: found_all.group(name) for name in names})
    return True


def _fields(params: Any) -> frozenset[str] | None:
    return frozenset(params) if isinstance(params, dict) else None


def _asked(params: Any) -> frozenset[str] | None:
    """The fields a request asks something with: a field sent `false`, null or empty (a
    list, an object) asks what leaving it out asks (`includeTurns: false`, `cursor: null`,
    `sparsePaths: []`), as codex's params default to those."""
    if not isinstance(params, dict):
        return None
    return frozenset(name for name, value in params.items() if not _unasked(value))


def _unasked(value: Any) -> bool:
    return value is False or value is None or value == [] or value == {}


def _same_fields(pool: list[BookCell], params: Any) -> BookCell | None:
    """The cell that sent the request's fields, with the request's value in each field the
    pool varies (`itemsView` of a full call sent `notLoaded` says nothing of `summary`);
    else one refused where the minimal call was answered, for a request whose values of
    those fields the release answered alone: the refusal is for a field, not a value (a
    config write's `expectedVersion`, whatever its `mergeStrategy`)."""
    wanted = _asked(params)
    if wanted is None:
        return None
    varied = {c.variant.partition("=")[0] for c in pool if "=" in c.variant} & wanted
    alike = [c for c in pool if _asked(c.params) == wanted]
    same = next((c for c in alike if all(_same_kind(c.params[n], params[n]) for n in varied)), None)
    if same is not None or not _minimal_answered(pool):
        return same
    values_answered = all(
        any(c.outcome == "answered" for c in pool if sets_value(c, name, params[name]))
        for name in varied
    )
    refused = next((c for c in alike if c.outcome == "refused"), None)
    return refused if values_answered else None


def _same_value(pool: list[BookCell], params: Any) -> BookCell | None:
    """The `FIELD=VALUE` cell of a value the request sends; a refused one first, as
    codex refuses a call for any one value it refuses; but not one refused in the words
    the minimal call was: a refusal of what the call lacks, which says nothing of the
    value (`no goal exists`, where a call with an `objective` makes one)."""
    if not isinstance(params, dict):
        return None
    minimal = next((c for c in pool if c.variant == MINIMAL), None)
    lacking = minimal.error.message if minimal is not None and minimal.error else None
    found = [
        cell
        for cell in pool
        if _sets_sent_value(cell, params) and (cell.error is None or cell.error.message != lacking)
    ]
    return next((c for c in found if c.outcome == "refused"), None) or next(iter(found), None)


def _refused_value(pool: list[BookCell], params: Any) -> BookCell | None:
    """A refused `FIELD=VALUE` cell of a value the request sends, where the release
    answered the minimal call in the cell's state: refused for the value, not the state."""
    if not isinstance(params, dict):
        return None
    answered = {c.state for c in pool if c.variant == MINIMAL and c.outcome == "answered"}
    found = [
        c
        for c in pool
        if c.outcome == "refused" and c.state in answered and _sets_sent_value(c, params)
    ]
    return next(iter(found), None)


def _sets_sent_value(cell: BookCell, params: dict[str, Any]) -> bool:
    field, equals, _ = cell.variant.partition("=")
    if not equals or not isinstance(cell.params, dict) or field not in params:
        return False
    return _same_kind(cell.params.get(field), params[field])


def _same_kind(recorded: Any, sent: Any) -> bool:
    """The enumerated value `sent` is the one `recorded` stands for."""
    if matches(recorded, sent, {}):
        return True
    if isinstance(recorded, dict) and isinstance(sent, dict):
        if len(recorded) == 1 and "type" not in recorded:
            # serde's externally tagged value: its one key is its variant.
            return set(recorded) == set(sent)
        return "type" in recorded and recorded.get("type") == sent.get("type")
    if isinstance(recorded, list) and isinstance(sent, list) and recorded and sent:
        kinds = {_kind(item) for item in sent}
        return kinds == {_kind(item) for item in recorded}
    return False


def _kind(item: Any) -> Any:
    return item.get("type") if isinstance(item, dict) else type(item).__name__


def _minimal_or_full(pool: list[BookCell], params: Any) -> BookCell:
    minimal = next((c for c in pool if c.variant == MINIMAL), None)
    full = next((c for c in pool if c.variant == FULL), None)
    sent = _asked(params) or frozenset()
    beyond = minimal is None or not sent <= (_fields(minimal.params) or frozenset())
    if (
        beyond
        and full is not None
        and not _refused_for_what_is_not_sent(full, minimal, _filled_fields(params))
        and (minimal is None or _distance(minimal, params) >= _distance(full, params))
    ):
        return full
    return minimal or full or pool[0]


def _distance(cell: BookCell, params: Any) -> int:
    """How far `cell`'s params are from the request's: the fields one asks with and the
    other not, and those both send with values of other kinds. A field sent `false`, null
    or empty asks what leaving it out asks (`_asked`): a request with `cursor: null` is
    no nearer a call that sent `cursor: null` and a `turnId` than one that sent neither."""
    mine = _asked_params(cell.params)
    theirs = _asked_params(params)
    apart = set(mine) ^ set(theirs)
    shared = set(mine) & set(theirs)
    return len(apart) + sum(1 for name in shared if not _alike(mine[name], theirs[name]))


def _asked_params(params: Any) -> dict[str, Any]:
    if not isinstance(params, dict):
        return {}
    return {name: value for name, value in params.items() if not _unasked(value)}


def _alike(recorded: Any, sent: Any) -> bool:
    return type(recorded) is type(sent) and (not isinstance(sent, bool) or recorded == sent)


def refused_for_its_values(
    book: AnswerBook, method: str, state: str, params: Any
) -> BookCell | None:
    """The cell that refused the request's own values where the release answered the
    minimal call in `state`: a refused `FIELD=VALUE` cell of a value it sends, or a full
    call refused for a field it sends (ways 2 and 4); where it refused the minimal call
    there, a `FIELD=VALUE` cell of a value it sends refused in other words (codex checked
    the value first). For a method the fake's handler answers."""
    cells = book.cells_of(method)
    pool = _with_idle_values(cells, _valid_in(cells, state))
    minimal = next((c for c in pool if c.variant == MINIMAL), None)
    if minimal is None:
        return None
    if minimal.outcome == "refused" and isinstance(params, dict):
        words = minimal.error.message if minimal.error is not None else None
        return next(
            (
                c
                for c in pool
                if c.outcome == "refused"
                and c.error is not None
                and c.error.message != words
                and _sets_sent_value(c, params)
            ),
            None,
        )
    if minimal.outcome != "answered":
        return None
    found = _refused_for_what_it_sends(pool, params) or _refused_value(
        [*pool, *_minimal_of(cells, IDLE)], params
    )
    return found if found is not None and found.outcome == "refused" else None


# How codex words a refusal for want of the experimental API (`{what} requires
# experimentalApi capability`): it checks a request's experimental parts before any handler.
GATED = re.compile(r"requires experimentalApi capability$")


def gated_refusal(book: AnswerBook, method: str, params: Any) -> BookCell | None:
    """The release's refusal of the request for want of the experimental API, from a cell
    of any state: of the whole method, of an enumerated value the request sends, or of a
    field the full call sent that its refusal names and the request sends too. codex gates
    a request's experimental parts before its handler looks at any thread, so such a
    refusal holds in every state."""
    sent = _filled_fields(params)
    cells = book.cells_of(method)
    for cell in cells:
        if cell.error is None or not GATED.search(cell.error.message):
            continue
        if cell.variant == MINIMAL:
            return cell
        if isinstance(params, dict) and _sets_sent_value(cell, params):
            return cell
        if cell.variant == FULL:
            minimal = next(iter(_minimal_of(cells, cell.state)), None)
            without = (_fields(minimal.params) if minimal is not None else None) or frozenset()
            beyond = (_fields(cell.params) or frozenset()) - without
            causes = refusal_causes(cell, beyond)
            if causes and causes <= sent:
                return cell
    return None


def _minimal_answered(cells: list[BookCell]) -> bool:
    return any(c.variant == MINIMAL and c.outcome == "answered" for c in cells)


def _minimal_of(cells: list[BookCell], state: str) -> list[BookCell]:
    return [c for c in _valid_in(cells, state) if c.variant == MINIMAL]


def _causes(full: BookCell, minimal: BookCell | None) -> frozenset[str]:
    """The fields the full call sent beyond the minimal one that its refusal names, where
    the minimal call was answered (none: the refusal is not the fields' doing)."""
    if full.outcome != "refused" or minimal is None or minimal.outcome != "answered":
        return frozenset()
    beyond = (_fields(full.params) or frozenset()) - (_fields(minimal.params) or frozenset())
    return refusal_causes(full, beyond)


def _refused_for_what_is_not_sent(
    full: BookCell, minimal: BookCell | None, sent: frozenset[str]
) -> bool:
    """Whether the full call was refused for fields its refusal names that the request
    does not send (`thread not found: {{thread}}` for a request without a `threadId`),
    whatever the minimal call got."""
    if full.outcome != "refused":
        return False
    beyond = (_fields(full.params) or frozenset()) - (
        (_fields(minimal.params) if minimal is not None else None) or frozenset()
    )
    causes = refusal_causes(full, beyond)
    return bool(causes) and not causes <= sent


def _refused_for_what_it_sends(pool: list[BookCell], params: Any) -> BookCell | None:
    """The full call, where the release refused it for fields the request sends too
    (all of them: `toolOutput` cannot be combined with `input`); else a `with FIELD` call
    refused where the minimal one was answered, for a request that sends FIELD (a config
    write with an `expectedVersion`: `configVersionConflict`); or refused in other words
    than the minimal one, which codex checked FIELD before (`mcpServer/resource/read`
    with a `threadId`: `thread not found`, before `unknown MCP server`)."""
    minimal = next((c for c in pool if c.variant == MINIMAL), None)
    full = next((c for c in pool if c.variant == FULL), None)
    filled = _filled_fields(params)
    causes = _causes(full, minimal) if full is not None else frozenset()
    if full is not None and causes and _sends_alike(full, causes, params):
        return full
    if minimal is None:
        return None
    lacking = minimal.error.message if minimal.error is not None else None
    alone = [
        c
        for c in pool
        if c.variant.startswith(WITH)
        and c.outcome == "refused"
        and c.variant.removeprefix(WITH) in filled
        and (minimal.outcome == "answered" or (c.error and c.error.message != lacking))
    ]
    # Of several, the one the full call (which sends them all) was refused for first.
    words = full.error.message if full is not None and full.error is not None else None
    return next((c for c in alone if c.error and c.error.message == words), None) or next(
        iter(alone), None
    )


def _sends_alike(cell: BookCell, names: frozenset[str], params: Any) -> bool:
    """Whether the request sends each of `names` with a value of the kind `cell` sent (a
    boolean the same one): a full call refused for `includeTurns: true` says nothing of a
    request with `includeTurns: false`."""
    filled = _filled_fields(params)
    sent = cell.params if isinstance(cell.params, dict) else {}
    return names <= filled and all(_alike(sent.get(name), params[name]) for name in names)


def _filled_fields(params: Any) -> frozenset[str]:
    """The fields the request sends a value in: an empty list, object or text, or null,
    asks for nothing (`originators: []` filters nothing, where `["x"]` is refused)."""
    if not isinstance(params, dict):
        return frozenset()
    return frozenset(k for k, v in params.items() if v is not None and v not in ([], {}, ""))


def fill(value: Any, values: Mapping[str, str]) -> Any:
    """`value` with every placeholder it holds replaced by its value (an unknown one kept)."""
    if isinstance(value, str):
        return PLACEHOLDER.sub(lambda found: values.get(found.group(1), found.group(0)), value)
    if isinstance(value, list):
        return [fill(item, values) for item in value]
    if isinstance(value, dict):
        return {fill(key, values): fill(item, values) for key, item in value.items()}
    return value


def sets_value(cell: BookCell, name: str, sent: Any) -> bool:
    """Whether `cell` is the `FIELD=VALUE` call of field `name` with a value like `sent`."""
    field, equals, _ = cell.variant.partition("=")
    return (
        bool(equals)
        and field == name
        and isinstance(cell.params, dict)
        and _same_kind(cell.params.get(name), sent)
    )
