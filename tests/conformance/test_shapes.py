"""The refusal shapes match every text measured upstream, and only those."""

from __future__ import annotations

import re
import uuid

import pytest

from codex_probe.conformance.shapes import (
    ALREADY_INITIALIZED,
    INVALID_THREAD_ID,
    NO_ACTIVE_TURN_TO_INTERRUPT,
    NO_ACTIVE_TURN_TO_STEER,
    NO_ROLLOUT,
    NOT_INITIALIZED,
    THREAD_NOT_FOUND,
    TURNS_BEFORE_FIRST_TURN,
    UNKNOWN_METHOD,
    WRONG_ACTIVE_TURN,
    ErrorShape,
    expect_refusal,
    matches,
)
from codex_probe.fake_appserver.profile import available_versions, load_profile
from codex_probe.harness.jsonrpc.errors import ServerError, ServerExited

THREAD = str(uuid.uuid4())
# Each measured error of the profiles, the shape that must match it, and its holes.
MEASURED: list[tuple[str, ErrorShape, dict[str, str], dict[str, str]]] = [
    ("not_initialized", NOT_INITIALIZED, {}, {}),
    ("already_initialized", ALREADY_INITIALIZED, {}, {}),
    ("no_rollout", NO_ROLLOUT, {"thread_id": THREAD}, {"thread_id": THREAD}),
    ("thread_not_found", THREAD_NOT_FOUND, {"thread_id": THREAD}, {"thread_id": THREAD}),
    ("invalid_thread_id", INVALID_THREAD_ID, {"char": "n", "position": "1"}, {}),
    ("no_active_turn", NO_ACTIVE_TURN_TO_STEER, {}, {}),
    (
        "wrong_active_turn",
        WRONG_ACTIVE_TURN,
        {"expected": "x`y", "actual": THREAD},
        {"expected": "x`y", "actual": THREAD},
    ),
    ("unknown_method", UNKNOWN_METHOD, {"method": "no/such"}, {"method": "no/such"}),
    (
        "turns_before_first_turn",
        TURNS_BEFORE_FIRST_TURN,
        {"thread_id": THREAD},
        {"thread_id": THREAD},
    ),
    ("no_active_turn_to_interrupt", NO_ACTIVE_TURN_TO_INTERRUPT, {}, {}),
]


def refusal(code: int, message: str) -> ServerError:
    return ServerError(method="m", request_id=1, code=code, message=message)


# Every (version, refusal) a profile has; a null error is a refusal that release never
# gives (its behaviour entry says what it does instead), so there is no shape to check.
REFUSALS = [
    pytest.param(version, *measured, id=f"{version}-{measured[0]}")
    for version in available_versions()
    for measured in MEASURED
    if getattr(load_profile(version).errors, measured[0]) is not None
]


@pytest.mark.parametrize(("version", "name", "shape", "fill", "holes"), REFUSALS)
def test_every_measured_refusal_has_its_shape(
    version: str, name: str, shape: ErrorShape, fill: dict[str, str], holes: dict[str, str]
) -> None:
    answer = getattr(load_profile(version).errors, name)
    code, message = answer.answer(**fill)
    assert matches(refusal(code, message), shape, **holes), (code, message)


def test_a_refusal_with_another_code_or_another_id_does_not_match() -> None:
    text = f"no rollout found for thread id {THREAD}"
    assert not matches(refusal(-32001, text), NO_ROLLOUT, thread_id=THREAD)
    assert not matches(refusal(-32600, text), NO_ROLLOUT, thread_id=str(uuid.uuid4()))


async def test_expect_refusal_fails_on_a_result_and_lets_transport_errors_through() -> None:
    async def answers() -> dict[str, str]:
        return {"status": "ok"}

    async def exits() -> None:
        raise ServerExited(method="m", request_id=1, returncode=3, stderr_tail="")

    with pytest.raises(AssertionError, match=re.escape('got result {"status": "ok"}')):
        await expect_refusal(answers(), NOT_INITIALIZED)
    with pytest.raises(ServerExited):
        await expect_refusal(exits(), NOT_INITIALIZED)
