"""The property tests run under the suite's hypothesis profile (tests/conftest.py)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings


def test_property_tests_are_not_timed_so_a_busy_machine_cannot_fail_them() -> None:
    assert settings().deadline is None
    assert HealthCheck.too_slow in settings().suppress_health_check
