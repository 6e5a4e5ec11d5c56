"""Which rule (rules.py) each change of a surface key meets, read off the shape of the change.

An aspect is read by what its values look like, so an aspect added later is classified
without a word here:

- a map of paths to types (`{"thread.id": "string", "cwd": "string (required)"}`: an
  answer's shape, a schema part) is compared field by field: a path gone, new, made
  required or optional, a type whose atoms (`null`, `string`, `array<...>`...) or enum
  values (`enum(a|b)`) went or came, a variant of a tagged union (`items[]<type=x>`) gone
  or new. Whether that breaks depends on the direction: what a client sends (params)
  breaks when narrowed, what it receives (answers) when widened;
- an outcome (`{"answered": ...}` or `{"refused": ...}`) that turned from one to the other
  is a request now refused or now accepted; a refusal (`{"code", "message", ...}`) compares
  code, message and data; `{"unanswered_within_s": ...}` is a request left unanswered;
- a list of notification labels is compared as the multiset and the order of what codex
  sent (`METHOD (request)` labels a request codex made of the client);
- any other object is read key by key, anything else is `value-changed`.

Two aspects have their own reading: the schema's (keys `KIND METHOD`: the kind says which
part a client sends), and the model requests (none is a client's business).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from codex_probe.probes.domain.surface.rules import DEFAULT_LEVELS, Direction, Levels, Severity

REQUIRED = " (required)"
REQUEST_LABEL = " (request)"


@dataclass(frozen=True)
class Classified:
    """One change inside a key's value, and the rule it meets."""

    rule: str
    severity: Severity
    where: str  # the path inside the value ("params.sandbox"), "" for the key itself
    before: Any  # None: not there before
    after: Any  # None: not there after

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity.name,
            "where": self.where,
            "before": self.before,
            "after": self.after,
        }

    def text(self) -> str:
        place = f"{self.where}: " if self.where else ""
        return f"{self.rule}: {place}{_said(self.before)} -> {_said(self.after)}"


Found = tuple[str, str, Any, Any]  # rule, where, before, after


def classify(
    aspect: str, key: str, before: Any, after: Any, levels: Levels = DEFAULT_LEVELS
) -> tuple[Classified, ...]:
    """Every rule the change of `ASPECT KEY` from `before` to `after` meets (None: the
    key is new, or gone), worst first."""
    reading = READINGS.get(aspect, _observed)
    found = [
        Classified(rule, levels.of(rule), where, old, new)
        for rule, where, old, new in reading(key, before, after)
    ]
    if not found:  # a change no rule reads is still a change
        found = [Classified("value-changed", levels.of("value-changed"), "", before, after)]
    return tuple(sorted(found, key=lambda c: -c.severity))


# ----- the schema ---------------------------------------------------------------------------

KEY_RULES = {  # kind -> (rule when the method is gone, when it is new)
    "client request": ("method-removed", "method-added"),
    "server notification": ("notification-removed", "notification-added"),
    "server request": ("server-request-removed", "server-request-added"),
    "client notification": ("client-notification-removed", "client-notification-added"),
}
# Who sends each part of a method: the client sends a client request's params and its
# answer to a server request; it receives the rest.
SENDS = {
    ("client request", "params"),
    ("client notification", "params"),
    ("server request", "result"),
}


def _schema(key: str, before: Any, after: Any) -> Iterator[Found]:
    kind = next((k for k in KEY_RULES if key.startswith(k + " ")), None)
    if kind is None:
        yield from _observed(key, before, after)
        return
    gone, new = KEY_RULES[kind]
    if after is None:
        yield gone, "", key.removeprefix(kind + " "), None
        return
    if before is None:
        yield new, "", None, key.removeprefix(kind + " ")
        return
    for part in ("params", "result"):
        old, now = (before or {}).get(part), (after or {}).get(part)
        if old == now:
            continue
        direction: Direction = "sends" if (kind, part) in SENDS else "receives"
        yield from _fields(direction, part, _as_fields(old), _as_fields(now))


def _as_fields(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


# ----- fields: a map of paths to types ------------------------------------------------------


@dataclass(frozen=True)
class TypeText:
    """A structural type as schema_shapes.describe and shape.shape write it."""

    atoms: frozenset[str]  # `string`, `null`, `object`, `integer(int64)`, `array`, `map`, `enum`
    values: frozenset[str]  # the enum values it admits
    required: bool
    inner: tuple[tuple[str, str], ...]  # ("[]", items' type), ("{}", a map's values' type)

    @classmethod
    def parse(cls, text: str) -> TypeText:
        required = text.endswith(REQUIRED)
        atoms: set[str] = set()
        values: set[str] = set()
        inner: dict[str, list[str]] = {}
        for atom in _split(text.removesuffix(REQUIRED)):
            if atom.startswith("enum(") and atom.endswith(")"):
                atoms.add("enum")
                values |= set(atom[5:-1].split("|")) - {""}
            elif (found := re.fullmatch(r"(array|map)<(.*)>", atom)) is not None:
                atoms.add(found.group(1))
                suffix = "[]" if found.group(1) == "array" else "{}"
                inner.setdefault(suffix, []).append(found.group(2))
            else:
                atoms.add(atom)
        joined = tuple((suffix, "|".join(texts)) for suffix, texts in sorted(inner.items()))
        return cls(frozenset(atoms), frozenset(values), required, joined)


def _split(text: str) -> list[str]:
    """`a|enum(b|c)|array<d|e>` -> the atoms at the top level."""
    atoms, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "(<":
            depth += 1
        elif char in ")>":
            depth -= 1
        elif char == "|" and depth == 0:
            atoms.append(text[start:index])
            start = index + 1
    atoms.append(text[start:])
    return [atom for atom in atoms if atom]


VARIANT = re.compile(r"<[^<>]*>")


def _variants(paths: set[str]) -> set[str]:
    """Every variant a set of paths names, as the path up to its label (`items[]<type=x>`)."""
    found = set()
    for path in paths:
        for match in VARIANT.finditer(path):
            found.add(path[: match.end()])
    return found


def _fields(
    direction: Direction, prefix: str, old: dict[str, str], new: dict[str, str]
) -> Iterator[Found]:
    sends = direction == "sends"
    where = (
        (lambda path: f"{prefix}.{path}" if path not in ("", "$") else prefix)
        if prefix
        else (lambda path: path)
    )
    gone_variants = _variants(set(old)) - _variants(set(new))
    new_variants = _variants(set(new)) - _variants(set(old))
    for variant in sorted(_outermost(gone_variants)):
        rule = "request-variant-removed" if sends else "response-variant-removed"
        yield rule, where(variant), variant.rsplit("<", 1)[1].rstrip(">"), None
    for variant in sorted(_outermost(new_variants)):
        rule = "request-variant-added" if sends else "response-variant-added"
        yield rule, where(variant), None, variant.rsplit("<", 1)[1].rstrip(">")
    for path in sorted(old.keys() - new.keys()):
        if _under(path, gone_variants):
            continue
        if sends:
            rule = "request-field-removed"
        else:  # a field only ever seen as null (an answer's shape) read absent is no news
            only_null = old[path] == "null"
            rule = "response-null-field-removed" if only_null else "response-field-removed"
        yield rule, where(path), old[path], None
    for path in sorted(new.keys() - old.keys()):
        if _under(path, new_variants):
            continue
        if not sends:
            yield "response-field-added", where(path), None, new[path]
            continue
        parent_known = _parent(path) in old or _parent(path) in ("", "$")
        required = TypeText.parse(new[path]).required and parent_known
        yield (
            ("request-required-field-added" if required else "request-field-added"),
            where(path),
            None,
            new[path],
        )
    for path in sorted(old.keys() & new.keys()):
        if old[path] != new[path]:
            yield from _retyped(sends, where(path), old[path], new[path])


def _outermost(variants: set[str]) -> set[str]:
    return {
        v for v in variants if not any(v != other and v.startswith(other) for other in variants)
    }


def _under(path: str, variants: set[str]) -> bool:
    return any(path.startswith(variant) for variant in variants)


def _parent(path: str) -> str:
    """The path a field hangs from: `a.b` -> `a`, `a[].b` -> `a[]`, `a<type=x>.b` -> `a`."""
    cut = path.rsplit(".", 1)[0] if "." in path else ""
    return VARIANT.sub("", cut)


def _retyped(sends: bool, where: str, old_text: str, new_text: str) -> Iterator[Found]:
    old, new = TypeText.parse(old_text), TypeText.parse(new_text)
    if old.required != new.required:
        if sends:
            rule = "request-field-now-required" if new.required else "request-field-now-optional"
        else:
            rule = "response-field-now-required" if new.required else "response-field-now-optional"
        yield rule, where, old_text, new_text
    if "enum" in old.atoms and "enum" in new.atoms:
        for value in sorted(old.values - new.values):
            yield (
                ("request-enum-value-removed" if sends else "response-enum-value-removed"),
                where,
                value,
                None,
            )
        for value in sorted(new.values - old.values):
            yield (
                ("request-enum-value-added" if sends else "response-enum-value-added"),
                where,
                None,
                value,
            )
    gone, came = old.atoms - new.atoms, new.atoms - old.atoms
    if "enum" in gone and "string" in came:
        # An enum opened to any string: every value is accepted where a client sends it,
        # and where it reads it, a closed enum meets values it does not know.
        gone, came = gone - {"enum"}, came - {"string"}
        if sends:
            yield "request-type-widened", where, old_text, new_text
        else:
            yield "response-enum-value-added", where, None, "any string"
    if sends:
        if gone:
            yield "request-type-narrowed", where, old_text, new_text
        elif came:
            yield "request-type-widened", where, old_text, new_text
    else:
        if "null" in came:
            yield "response-field-now-nullable", where, old_text, new_text
        if came - {"null"}:
            yield "response-field-retyped", where, old_text, new_text
        elif gone:
            yield "response-type-narrowed", where, old_text, new_text
    old_inner, new_inner = dict(old.inner), dict(new.inner)
    for suffix in sorted(old_inner.keys() & new_inner.keys()):
        if old_inner[suffix] != new_inner[suffix]:
            yield from _retyped(sends, where + suffix, old_inner[suffix], new_inner[suffix])


# ----- observed behaviour -------------------------------------------------------------------


def _observed(key: str, before: Any, after: Any, where: str = "") -> Iterator[Found]:
    if before is None and after is None:
        return
    if before is None or after is None:
        yield from _appeared_or_went(where, before, after)
        return
    if _is_outcome(before) and _is_outcome(after):
        (was, inner_before), (now, inner_after) = _outcome(before), _outcome(after)
        if was != now:
            rule = "request-now-refused" if now == "refused" else "request-now-accepted"
            yield rule, where, was, now
            return
        yield from _observed(key, inner_before, inner_after, where)
        return
    if _is_unanswered(before) != _is_unanswered(after):
        rule = "request-now-unanswered" if _is_unanswered(after) else "request-now-answered"
        yield rule, where, _said_outcome(before), _said_outcome(after)
        return
    if _is_refusal(before) and _is_refusal(after):
        yield from _refusal(where, before, after)
        return
    if _fields_or_empty(before) and _fields_or_empty(after):
        yield from _fields("receives", where, before, after)
        return
    if _is_labels(before) and _is_labels(after):
        yield from _labels(where, before, after)
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for name in sorted(before.keys() | after.keys()):
            if before.get(name) != after.get(name):
                inner = f"{where}.{name}" if where else str(name)
                yield from _observed(key, before.get(name), after.get(name), inner)
        return
    yield "value-changed", where, before, after


def _appeared_or_went(where: str, before: Any, after: Any) -> Iterator[Found]:
    value = after if before is None else before
    went = after is None
    if _is_refusal(value) or (_is_outcome(value) and _outcome(value)[0] == "refused"):
        yield ("request-now-accepted" if went else "request-now-refused"), where, before, after
    elif _is_labels(value):
        yield from _labels(where, [] if before is None else before, [] if after is None else after)
    elif _is_fields(value) or _is_outcome(value) or _is_unanswered(value):
        yield (
            ("answer-gone" if went else "answer-new"),
            where,
            _said_outcome(before),
            _said_outcome(after),
        )
    else:
        yield "value-changed", where, before, after


def _is_outcome(value: Any) -> bool:
    return (
        isinstance(value, dict) and len(value) == 1 and next(iter(value)) in ("answered", "refused")
    )


def _outcome(value: dict[str, Any]) -> tuple[str, Any]:
    return next(iter(value.items()))


def _is_unanswered(value: Any) -> bool:
    return isinstance(value, dict) and "unanswered_within_s" in value


def _is_refusal(value: Any) -> bool:
    return isinstance(value, dict) and "code" in value and "message" in value


def _is_fields(value: Any) -> bool:
    return (
        isinstance(value, dict) and bool(value) and all(isinstance(v, str) for v in value.values())
    )


def _fields_or_empty(value: Any) -> bool:
    return _is_fields(value) or value == {}


def _is_labels(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _said_outcome(value: Any) -> Any:
    """An answer in a word for a detail: the shape is in the change's values."""
    if value is None:
        return None
    if _is_unanswered(value):
        return f"unanswered within {value['unanswered_within_s']} s"
    if _is_outcome(value):
        return _outcome(value)[0]
    return "answered"


def _refusal(where: str, before: dict[str, Any], after: dict[str, Any]) -> Iterator[Found]:
    for name, rule in (("code", "refusal-code-changed"), ("message", "refusal-message-changed")):
        if before.get(name) != after.get(name):
            yield rule, _join(where, name), before.get(name), after.get(name)
    for name in sorted((before.keys() | after.keys()) - {"code", "message"}):
        if before.get(name) != after.get(name):
            rule = "refusal-data-changed" if name == "data" else "value-changed"
            yield rule, _join(where, name), before.get(name), after.get(name)


def _labels(where: str, before: list[str], after: list[str]) -> Iterator[Found]:
    old, new = Counter(before), Counter(after)
    for label in sorted(old.keys() - new.keys()):
        request = label.endswith(REQUEST_LABEL)
        rule = "server-request-no-longer-sent" if request else "notification-no-longer-sent"
        yield rule, where, label, None
    for label in sorted(new.keys() - old.keys()):
        request = label.endswith(REQUEST_LABEL)
        yield (
            ("server-request-now-sent" if request else "notification-now-sent"),
            where,
            None,
            label,
        )
    for label in sorted(old.keys() & new.keys()):
        if old[label] != new[label]:
            yield (
                "notification-count-changed",
                where,
                f"{label} x{old[label]}",
                f"{label} x{new[label]}",
            )
    if old == new and before != after:
        yield "notification-order-changed", where, before, after


def _join(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


# ----- model requests -----------------------------------------------------------------------


def _model(key: str, before: Any, after: Any) -> Iterator[Found]:
    yield "model-request-changed", "", _said_model(before), _said_model(after)


def _said_model(value: Any) -> Any:
    if isinstance(value, dict):
        return value.get("kind") or "a request"
    return value


READINGS: dict[str, Callable[[str, Any, Any], Iterator[Found]]] = {
    "schema": _schema,
    "model_requests": _model,
}


def _said(value: Any, limit: int = 120) -> str:
    if value is None:
        return "(none)"
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
