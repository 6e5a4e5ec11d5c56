"""The property tests run under the suite's hypothesis profile (tests/conftest.py)."""

from __future__ import annotations

from hypothesis import settings


def test_property_tests_have_no_deadline_so_a_busy_machine_cannot_fail_them() -> None:
    assert settings().deadline is None
