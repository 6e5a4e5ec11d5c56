"""Which server answers count as explicit invalid/not-found (measured on 0.171.0)."""

from __future__ import annotations

import pytest

from codex_probe.harness.driver import SteerRefusal, ThreadRefusal, steer_refusal, thread_refusal
from codex_probe.harness.driver.refusals import other_active_turn
from codex_probe.harness.jsonrpc.errors import ServerError

ID = "38654797-903e-4e9f-8543-82d585948544"
MALFORMED = (
    "invalid character: expected an optional prefix of `urn:uuid:` followed by "
    "[0-9a-fA-F-], found `n` at 1"
)


def refused(message: str, code: int = -32600, method: str = "thread/resume") -> ServerError:
    return ServerError(method=method, request_id=1, code=code, message=message)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (f"no rollout found for thread id {ID}", ThreadRefusal.NOT_FOUND),
        (f"thread not found: {ID}", ThreadRefusal.NOT_FOUND),
        (f"invalid session id: {MALFORMED}", ThreadRefusal.INVALID),
        (f"invalid thread id: {MALFORMED}", ThreadRefusal.INVALID),
        (
            "invalid session id: invalid length: expected length 32 for simple format, found 0",
            ThreadRefusal.INVALID,
        ),
    ],
)
def test_the_measured_invalid_and_not_found_answers_are_recognised(
    message: str, expected: ThreadRefusal
) -> None:
    assert thread_refusal(refused(message)) is expected


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ("Invalid request: unknown variant `bogus`, expected one of `read-only`", -32600),
        ("no active turn to steer", -32600),
        (f"no rollout found for thread id {ID}", -32603),  # right words, wrong code
        (f"failed to load rollout: thread not found: {ID}", -32600),  # not at the start
        ("Server is draining; retry after reconnecting", -32600),
        ("Internal error", -32603),
    ],
)
def test_other_refusals_are_not_taken_for_invalid_or_not_found(message: str, code: int) -> None:
    assert thread_refusal(refused(message, code)) is None


def test_steer_refusals_are_told_apart() -> None:
    mismatch = "expected active turn id `a-1` but found `b-2`"
    assert steer_refusal(refused("no active turn to steer")) is SteerRefusal.NO_ACTIVE_TURN
    assert steer_refusal(refused(mismatch)) is SteerRefusal.OTHER_TURN_ACTIVE
    assert steer_refusal(refused("cannot steer a compact turn")) is SteerRefusal.NOT_STEERABLE
    assert steer_refusal(refused("cannot steer a review turn")) is SteerRefusal.NOT_STEERABLE
    assert steer_refusal(refused(f"thread not found: {ID}")) is None
    assert steer_refusal(refused("no active turn to steer", code=-32603)) is None
    assert other_active_turn(refused(mismatch)) == "b-2"
    assert other_active_turn(refused("no active turn to steer")) == ""
