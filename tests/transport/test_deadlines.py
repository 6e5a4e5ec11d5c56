"""Deadlines on one timer: each key expires at its own time unless it stopped waiting."""

from __future__ import annotations

import asyncio
from collections.abc import Hashable

from codex_probe.harness.jsonrpc.deadlines import SLACK, Deadlines


def deadlines_for(waiting: set[Hashable], expired: list[Hashable]) -> Deadlines[Hashable]:
    def expire(key: Hashable) -> None:
        waiting.discard(key)
        expired.append(key)

    return Deadlines(
        asyncio.get_running_loop(),
        waiting=waiting.__contains__,
        expire=expire,
        count_waiting=waiting.__len__,
    )


async def test_keys_expire_in_deadline_order_and_answered_ones_never() -> None:
    waiting: set[Hashable] = {"slow", "quick", "answered"}
    expired: list[Hashable] = []
    deadlines = deadlines_for(waiting, expired)
    deadlines.add("slow", 0.3)
    deadlines.add("answered", 0.05)
    deadlines.add("quick", 0.1)
    waiting.discard("answered")
    await asyncio.sleep(0.2)
    assert expired == ["quick"]
    await asyncio.sleep(0.2)
    assert expired == ["quick", "slow"]
    deadlines.close()


async def test_answered_keys_do_not_pile_up() -> None:
    waiting: set[Hashable] = set()
    expired: list[Hashable] = []
    deadlines = deadlines_for(waiting, expired)
    for key in range(10 * SLACK):
        waiting.add(key)
        deadlines.add(key, 30)
        waiting.discard(key)  # answered at once, as most requests are
    assert len(deadlines) <= SLACK + 1
    waiting.add("last")
    deadlines.add("last", 0.05)
    await asyncio.sleep(0.2)
    assert expired == ["last"]
    deadlines.close()
