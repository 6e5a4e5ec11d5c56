"""codex's error answers as templates: the observed message with our inputs as holes.

The scenarios send known inputs (an unknown thread id, a malformed one, a wrong turn id,
an unknown method), so each observed message becomes a str.format template by putting
the fake's placeholder where that input appears. A message that does not name the input
the fake fills in is a gap, not a guess. The fake's own refusals of input it cannot
imitate are sent to codex by no scenario: they keep the nearest checked-in answer, marked
not measured.
"""

from __future__ import annotations

from collections.abc import Callable

from codex_probe.fake_appserver.profile import ErrorAnswer
from codex_probe.probes.releases.learn.observed import Gap, Inexpressible, Observed
from codex_probe.probes.runner.scenarios import (
    MALFORMED_THREAD_ID,
    UNKNOWN_METHOD,
    UNKNOWN_THREAD_ID,
)


def _template(
    seen: Observed,
    scenario: str,
    label: str,
    name: str,
    holes: dict[str, str],
    *,
    optional_holes: dict[str, str] | None = None,
) -> ErrorAnswer:
    """The error of a step as a template: each literal in `holes` becomes its template, and
    so does each of `optional_holes` the message names (a release may leave it out)."""
    field = f"errors.{name}"
    error = seen.error(scenario, label, field)
    # Braces of the real text are literal; only our holes are placeholders.
    message = str(error["message"]).replace("{", "{{").replace("}", "}}")
    for literal, template in (optional_holes or {}).items():
        if literal:
            message = message.replace(literal, template)
    for literal, template in holes.items():
        if not literal or literal not in message:
            raise Inexpressible(
                Gap(
                    field,
                    scenario,
                    label,
                    f"the message {error['message']!r} does not name {literal!r}",
                    f"an error template without {template}",
                )
            )
        message = message.replace(literal, template)
    return ErrorAnswer(code=int(error["code"]), message=message)


def _malformed_id_hole() -> tuple[str, str]:
    """Where the fake says a malformed id breaks: the first character that is not hex."""
    for position, char in enumerate(MALFORMED_THREAD_ID, start=1):
        if char not in "0123456789abcdefABCDEF-":
            return char, str(position)
    raise AssertionError("the malformed id must be malformed")


def _thread_id(seen: Observed) -> str:
    return seen.observation("errors", "errors.thread_not_found").threads.get("A", "")


def _active_turn(seen: Observed) -> str:
    begun = seen.step("errors", "turn-2", "errors.wrong_active_turn")["result"] or {}
    return str(begun.get("turn", {}).get("id", ""))


def _never_turned_thread_id(seen: Observed) -> str:
    return seen.observation("errors", "errors.turns_before_first_turn").threads.get("B", "")


def _no_active_turn_to_interrupt(seen: Observed) -> ErrorAnswer | None:
    """The refusal of an interrupt without a turn; None where codex leaves it unanswered."""
    idle = seen.step("errors", "interrupt-idle", "errors.no_active_turn_to_interrupt")
    if idle["error"] is None and idle["unanswered_within"] is not None:
        return None
    return _template(seen, "errors", "interrupt-idle", "no_active_turn_to_interrupt", {})


def _invalid_thread_id(seen: Observed) -> ErrorAnswer:
    char, position = _malformed_id_hole()
    where = f"`{char}` at {position}"
    return _template(
        seen,
        "errors",
        "resume-malformed",
        "invalid_thread_id",
        {where: "`{char}` at {position}"},
    )


# One inference per error the fake answers, in the profile's order.
ERROR_INFERENCES: dict[str, Callable[[Observed], ErrorAnswer | None]] = {
    "not_initialized": lambda seen: _template(
        seen, "handshake", "before-initialize", "not_initialized", {}
    ),
    "already_initialized": lambda seen: _template(
        seen, "handshake", "initialize-again", "already_initialized", {}
    ),
    "unknown_method": lambda seen: _template(
        seen, "handshake", "unknown-method", "unknown_method", {UNKNOWN_METHOD: "{method}"}
    ),
    "no_rollout": lambda seen: _template(
        seen, "errors", "resume-unknown", "no_rollout", {UNKNOWN_THREAD_ID: "{thread_id}"}
    ),
    "invalid_thread_id": _invalid_thread_id,
    "thread_not_found": lambda seen: _template(
        seen, "errors", "turn-unloaded", "thread_not_found", {_thread_id(seen): "{thread_id}"}
    ),
    "no_active_turn": lambda seen: _template(seen, "errors", "steer-idle", "no_active_turn", {}),
    "steer_without_expected_turn": lambda seen: _template(
        seen, "errors", "steer-without-expected", "steer_without_expected_turn", {}
    ),
    "wrong_active_turn": lambda seen: _template(
        seen,
        "errors",
        "steer-wrong",
        "wrong_active_turn",
        {"not-the-turn": "{expected}", _active_turn(seen): "{actual}"},
    ),
    # 0.120.0 names the thread, 0.171.0 does not.
    "turns_before_first_turn": lambda seen: _template(
        seen,
        "errors",
        "read-before-turn",
        "turns_before_first_turn",
        {},
        optional_holes={_never_turned_thread_id(seen): "{thread_id}"},
    ),
    "no_active_turn_to_interrupt": _no_active_turn_to_interrupt,
}


# The fake's own refusals (profile Errors), each with why no scenario observes it.
UNOBSERVED_ERRORS: dict[str, str] = {
    "turn_without_text": "no scenario sends codex a turn/start without text input",
}
