"""A request's params checked as the release checks them, refused in its words.

codex deserializes every request before any handler runs (serde): it reads the params'
fields in the order they come, and refuses the first whose value is of a type the field
does not take or an enumerated value it does not know; then the first required field
(in the schema's order) that is absent. Unknown fields are ignored. The fields and the
words are the answer book's (answer_book.py: `params`, `wordings`), learned from the
release's schema and its refusals of the exploration's invalid calls; last, a `threadId`
that is no UUID, in the words of the method's handler where the book has them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from codex_probe.fake_appserver.answer_book import AnswerBook, FieldRule
from codex_probe.harness.json_types import json_type

UUID = re.compile(
    r"(urn:uuid:)?[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}"
)
HEX_OR_DASH = frozenset("0123456789abcdefABCDEF-")


def refusal_of(book: AnswerBook, method: str, params: Any) -> tuple[int, str] | None:
    """The release's refusal of `params` for `method` (None: it takes them, or the book
    cannot say)."""
    rules = book.params.get(method)
    if not rules or not isinstance(params, dict):
        return None
    by_name = {rule.name: rule for rule in rules}
    for name, value in params.items():
        rule = by_name.get(name)
        if rule is not None and (refused := _refusal_of_value(book, rule, value)):
            return refused
    missing = book.wording("missing field")
    for rule in rules:
        if rule.required and rule.name not in params and missing is not None:
            return missing.filled(field=rule.name)
    return _malformed_id(book, method, params.get("threadId"))


def _malformed_id(book: AnswerBook, method: str, thread_id: Any) -> tuple[int, str] | None:
    """A `threadId` that is no UUID, refused as the method's handler refuses it (after
    the params were read: serde took the string)."""
    wording = book.malformed_ids.get(method)
    if wording is None or not isinstance(thread_id, str) or UUID.fullmatch(thread_id):
        return None
    position, char = next(
        ((i + 1, c) for i, c in enumerate(thread_id) if c not in HEX_OR_DASH),
        (1, thread_id[:1]),
    )
    return wording.filled(char=char, position=str(position))


def _refusal_of_value(book: AnswerBook, rule: FieldRule, value: Any) -> tuple[int, str] | None:
    if value is None:  # an optional field may be null; a required one is not checked here
        return None
    wrong = book.wording("invalid type")
    types = rule.types or types_named(rule.expected)
    if types and not takes(types, value):
        if rule.wrong_type is not None:
            return rule.wrong_type.filled()
        if wrong is not None and rule.expected is not None:
            return wrong.filled(got=unexpected(value), expected=rule.expected)
        return None
    untagged = _untagged(rule, value)
    missing = book.wording("missing field")
    if untagged is not None and missing is not None:
        return missing.filled(field=untagged)
    unknown = book.wording("unknown variant")
    if rule.values is None or unknown is None or rule.values_expected is None:
        return None
    if rule.in_list:
        items = value if isinstance(value, list) else []
        strange = next((i for i in items if isinstance(i, str) and i not in rule.values), None)
        if strange is None:
            return None
        return unknown.filled(value=strange, expected=rule.values_expected)
    sent = value.get(rule.tag) if rule.tag is not None and isinstance(value, dict) else value
    if rule.tag is None and not isinstance(value, str):
        return None
    if isinstance(sent, str) and sent not in rule.values:
        return unknown.filled(value=sent, expected=rule.values_expected)
    return None


def _untagged(rule: FieldRule, value: Any) -> str | None:
    """The tag an object of the field (or of its list) lacks, which serde reads first."""
    if rule.item_tag is None:
        return None
    items = value if isinstance(value, list) else [value]
    lacking = any(isinstance(item, dict) and rule.item_tag not in item for item in items)
    return rule.item_tag if lacking else None


# serde's words for what a field takes, and the JSON types they name: where the schema
# does not say (a `$ref` to a path), the release's own words for the field do.
SERDE_WORDS = (
    (re.compile(r"(a |path )?string"), ["string"]),
    (re.compile(r"a boolean"), ["boolean"]),
    (re.compile(r"a sequence"), ["array"]),
    (re.compile(r"(a map|struct \w+)"), ["object"]),
    (re.compile(r"[ui](8|16|32|64|size)"), ["integer"]),
)


def types_named(expected: str | None) -> list[str] | None:
    """The JSON types serde's `expected` words name (None: words that name no one type,
    `string or map`, an enum)."""
    if expected is None:
        return None
    return next((types for words, types in SERDE_WORDS if words.fullmatch(expected)), None)


def takes(types: list[str], value: Any) -> bool:
    kind = json_type(value)
    return kind in types or (kind == "integer" and "number" in types)


def unexpected(value: Any) -> str:
    """What serde calls a value it did not expect (serde::de::Unexpected, as serde_json
    reports a JSON value)."""
    if value is None:
        return "unit value"
    if isinstance(value, bool):
        return f"boolean `{str(value).lower()}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value}`"
    if isinstance(value, str):
        return f"string {json.dumps(value, ensure_ascii=False)}"
    return "sequence" if isinstance(value, list) else "map"
