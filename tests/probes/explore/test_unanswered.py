"""What one lane learns goes unanswered shortens every lane's wait for that method."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from codex_probe.harness.jsonrpc.errors import RequestTimeout
from codex_probe.probes.explore.unanswered import UNANSWERED_AGAIN_S, Unanswered

FULL_S = 30.0  # far longer than the test may take: a wait that ran it out fails the test


def never_answered(sent: list[float]) -> Any:
    """A request codex never answers: it raises RequestTimeout at its deadline."""

    async def request(deadline: float) -> Any:
        sent.append(deadline)
        await asyncio.sleep(deadline)
        raise RequestTimeout(method="m", request_id=1, elapsed=deadline, stderr_tail="")

    return request


def answered_after(seconds: float, answer: Any) -> Any:
    async def request(deadline: float) -> Any:
        await asyncio.sleep(seconds)
        return answer

    return request


async def test_a_call_of_a_method_another_lane_learns_goes_unanswered_ends_soon_after_sending() -> (
    None
):
    unanswered = Unanswered()
    deadlines: list[float] = []
    started = time.monotonic()
    waiting = asyncio.ensure_future(unanswered.ask("m", never_answered(deadlines), FULL_S))
    await asyncio.sleep(0.05)
    unanswered.add("m")  # another lane's call of it ran out its deadline
    with pytest.raises(RequestTimeout):
        await waiting
    took = time.monotonic() - started
    assert UNANSWERED_AGAIN_S - 0.05 <= took < FULL_S / 2  # a timer may fire a little early
    assert deadlines == [FULL_S]  # sent with the full deadline, cut short by what was learnt


async def test_a_method_known_to_go_unanswered_is_sent_with_the_short_deadline() -> None:
    unanswered = Unanswered()
    unanswered.add("m")
    deadlines: list[float] = []
    with pytest.raises(RequestTimeout):
        await unanswered.ask("m", never_answered(deadlines), FULL_S)
    assert deadlines == [UNANSWERED_AGAIN_S]
    assert "m" in unanswered and "other" not in unanswered


async def test_an_answer_that_comes_is_the_answer_even_once_the_method_was_learnt() -> None:
    unanswered = Unanswered()
    waiting = asyncio.ensure_future(unanswered.ask("m", answered_after(0.3, {"ok": 1}), FULL_S))
    await asyncio.sleep(0.05)
    unanswered.add("m")
    assert await waiting == {"ok": 1}


async def test_a_refusal_is_raised_as_the_request_raised_it() -> None:
    async def refused(deadline: float) -> Any:
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        await Unanswered().ask("m", refused, FULL_S)
