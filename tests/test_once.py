"""Fixtures' shared work: made once per test run, read by every worker."""

from __future__ import annotations

import pytest

from tests.once import computed_once


def test_a_value_is_computed_once_and_each_caller_gets_its_own_copy(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    calls: list[int] = []

    def compute() -> dict[str, list[int]]:
        calls.append(1)
        return {"seen": [1, 2]}

    first = computed_once(tmp_path_factory, "test-once-value", compute)
    first["seen"].append(3)
    second = computed_once(tmp_path_factory, "test-once-value", compute)
    assert calls == [1]
    assert second == {"seen": [1, 2]}
