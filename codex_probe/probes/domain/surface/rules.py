"""The breaking-change rules: one entry per kind of change to a release's protocol surface,
weighed by what it does to *a* client of the app-server (not only the reference driver).

Each rule has an id (stable: a project's severity levels and a CI's annotations name it),
a severity, the direction it breaks and one line of why:

    ERR   a client that worked breaks: a call refused, a field it reads gone or retyped,
          a notification it waits for never sent
    WARN  a client may break, depending on how it is written: a closed enum meets a new
          value, a field it still sends is ignored, a refusal's code it branches on moved
    INFO  additive or invisible to a client: a new method, field or value, a type widened
          where the client sends, narrowed where it reads

Direction: `sends` (what a client sends codex: requests' params, its answers to codex's
requests), `receives` (what codex sends a client: answers, notifications, codex's requests,
refusals), `model` (what codex asks the model provider: no client of the app-server sees it).

classify.py says which rule a change meets, by the shape of the change; a project may raise
or lower a rule with a severity-levels file (`RULE-ID LEVEL` per line, `#` comments), as
oasdiff's `--severity-levels` does.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Direction = Literal["sends", "receives", "model"]


class Severity(enum.IntEnum):
    INFO = 1
    WARN = 2
    ERR = 3

    @classmethod
    def parse(cls, text: str) -> Severity:
        """`ERR`, `err`, `error`, `WARN`, `warning`, `INFO`: the severity, else ValueError."""
        word = text.strip().upper()
        found = {"ERROR": "ERR", "WARNING": "WARN"}.get(word, word)
        if found not in cls.__members__:
            raise ValueError(f"{text!r} is not a severity (ERR, WARN or INFO)")
        return cls[found]


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    direction: Direction
    reason: str

    def to_json(self) -> dict[str, str]:
        return {
            "id": self.id,
            "severity": self.severity.name,
            "direction": self.direction,
            "reason": self.reason,
        }


ERR, WARN, INFO = Severity.ERR, Severity.WARN, Severity.INFO

RULES: tuple[Rule, ...] = (
    # Methods and notifications, as the schema lists them.
    Rule("method-removed", ERR, "sends", "a client that calls it is refused (unknown method)"),
    Rule("method-added", INFO, "sends", "a new method: no client calls it yet"),
    Rule("notification-removed", ERR, "receives", "a client waiting for it waits forever"),
    Rule("notification-added", INFO, "receives", "a new notification: a client may ignore it"),
    Rule(
        "server-request-removed",
        WARN,
        "receives",
        "codex no longer asks the client this (an approval, say): what the answer decided, "
        "codex decides alone",
    ),
    Rule(
        "server-request-added",
        WARN,
        "receives",
        "codex may ask a client something it cannot answer, and wait for the answer",
    ),
    Rule(
        "client-notification-removed", ERR, "sends", "what a client still sends is not understood"
    ),
    Rule("client-notification-added", INFO, "sends", "a new notification a client may send"),
    # The fields of what a client sends.
    Rule(
        "request-required-field-added",
        ERR,
        "sends",
        "a request without the new field, as every client sends it, is refused",
    ),
    Rule("request-field-now-required", ERR, "sends", "a client that leaves it out is refused"),
    Rule("request-field-now-optional", INFO, "sends", "a client may leave it out now"),
    Rule("request-field-added", INFO, "sends", "a new optional field: clients need not send it"),
    Rule(
        "request-field-removed",
        WARN,
        "sends",
        "a client still sending it is ignored there (or refused): what it set is no longer set",
    ),
    Rule(
        "request-type-narrowed",
        ERR,
        "sends",
        "a value of a type a client may send (null, say) is refused",
    ),
    Rule("request-type-widened", INFO, "sends", "more values accepted than before"),
    Rule(
        "request-enum-value-removed",
        ERR,
        "sends",
        "a client sending the value (a persisted setting, say) is refused",
    ),
    Rule("request-enum-value-added", INFO, "sends", "a new value a client may send"),
    Rule(
        "request-variant-removed",
        ERR,
        "sends",
        "a variant of a tagged union a client sends is refused",
    ),
    Rule("request-variant-added", INFO, "sends", "a new variant a client may send"),
    # The fields of what a client receives.
    Rule("response-field-removed", ERR, "receives", "a client reading it finds nothing"),
    Rule("response-field-added", INFO, "receives", "a new field: a client may ignore it"),
    Rule(
        "response-null-field-removed",
        INFO,
        "receives",
        "a field the client only ever received as null is absent: a decoder that reads a "
        "missing field as null sees no change",
    ),
    Rule(
        "response-field-retyped",
        ERR,
        "receives",
        "a value of a type the client never decoded there (a typed decoder fails)",
    ),
    Rule(
        "response-field-now-nullable",
        ERR,
        "receives",
        "a client that reads it as always there meets null",
    ),
    Rule(
        "response-field-now-optional",
        ERR,
        "receives",
        "a client that reads it as always there finds it absent",
    ),
    Rule("response-field-now-required", INFO, "receives", "always there now"),
    Rule("response-type-narrowed", INFO, "receives", "fewer kinds of value than before"),
    Rule(
        "response-enum-value-added",
        WARN,
        "receives",
        "a client with a closed enum (generated bindings) fails to decode the new value",
    ),
    Rule("response-enum-value-removed", INFO, "receives", "a value a client no longer meets"),
    Rule(
        "response-variant-added",
        WARN,
        "receives",
        "a client with a closed union (generated bindings) fails to decode the new variant",
    ),
    Rule("response-variant-removed", INFO, "receives", "a variant a client no longer meets"),
    # What codex did in a run, as the surface observed it.
    Rule("request-now-refused", ERR, "sends", "accepted before, refused now"),
    Rule("request-now-accepted", INFO, "sends", "refused before, answered now"),
    Rule(
        "request-now-unanswered",
        ERR,
        "sends",
        "answered before, unanswered within the step's deadline now: a client waits",
    ),
    Rule("request-now-answered", INFO, "sends", "unanswered before, answered now"),
    Rule(
        "answer-gone",
        WARN,
        "receives",
        "an answer the run got is no longer there: the request was not sent again (the run "
        "took another path) or moved",
    ),
    Rule("answer-new", INFO, "receives", "an answer the run did not get before"),
    Rule(
        "refusal-code-changed",
        WARN,
        "receives",
        "a client that tells refusals apart by code reads it as another",
    ),
    Rule(
        "refusal-message-changed",
        INFO,
        "receives",
        "the words of a refusal (a client matching them reads it as another)",
    ),
    Rule("refusal-data-changed", INFO, "receives", "the data a refusal carries"),
    Rule(
        "notification-no-longer-sent",
        ERR,
        "receives",
        "the work used to send it: a client waiting for it waits forever",
    ),
    Rule("notification-now-sent", INFO, "receives", "the work sends a notification it did not"),
    Rule(
        "notification-count-changed",
        WARN,
        "receives",
        "sent a different number of times: a client counting them miscounts",
    ),
    Rule(
        "notification-order-changed",
        WARN,
        "receives",
        "the same notifications in another order: a client relying on the order breaks",
    ),
    Rule(
        "server-request-no-longer-sent",
        WARN,
        "receives",
        "codex no longer asks the client this during the work: what it decided, codex decides",
    ),
    Rule(
        "server-request-now-sent",
        WARN,
        "receives",
        "codex asks the client something during the work that it did not: a client that "
        "does not answer it stalls the work",
    ),
    Rule(
        "model-request-changed",
        INFO,
        "model",
        "what codex asks the model provider: no client of the app-server sees it",
    ),
    Rule("value-changed", INFO, "receives", "a value no other rule reads changed"),
)

BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}


def rule(rule_id: str) -> Rule:
    return BY_ID[rule_id]


class LevelsError(ValueError):
    """A severity-levels file that cannot be read: one line naming the place and the fault."""


@dataclass(frozen=True)
class Levels:
    """The severity of each rule: the catalogue's, with a project's overrides."""

    overrides: Mapping[str, Severity] = field(default_factory=dict)

    def of(self, rule_id: str) -> Severity:
        return self.overrides.get(rule_id, BY_ID[rule_id].severity)

    @classmethod
    def parse(cls, text: str, where: str) -> Levels:
        """Lines of `RULE-ID LEVEL` (`#` begins a comment), as oasdiff reads them."""
        overrides: dict[str, Severity] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) != 2:
                raise LevelsError(f"{where}:{number}: expected RULE-ID LEVEL, got {line.strip()!r}")
            rule_id, level = words
            if rule_id not in BY_ID:
                raise LevelsError(
                    f"{where}:{number}: unknown rule {rule_id!r} (`codex-probe rules` lists them)"
                )
            try:
                overrides[rule_id] = Severity.parse(level)
            except ValueError as error:
                raise LevelsError(f"{where}:{number}: {error}") from None
        return cls(overrides)


DEFAULT_LEVELS = Levels()


def read_levels(path: Path) -> Levels:
    """A severity-levels file, or LevelsError in one line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        why = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise LevelsError(f"{path}: cannot be read: {why}") from None
    return Levels.parse(text, str(path))
