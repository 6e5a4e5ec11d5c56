"""`@check("CONF-...")`: the marker that makes a test a registered conformance check."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from codex_probe.conformance.registry import CONFORMANCE_CHECKS, MARKER, ConformanceCheck, get_check

F = TypeVar("F", bound=Callable[..., Any])


def check(check_id: str) -> Callable[[F], F]:
    """Mark a test as the check `check_id` (which must be registered)."""
    get_check(check_id)
    marker: Callable[[F], F] = getattr(pytest.mark, MARKER)(check_id)
    return marker


def check_of(item: pytest.Item) -> ConformanceCheck | None:
    """The check a collected test is, None for a test that is no check."""
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        return None
    if len(marker.args) != 1 or marker.args[0] not in CONFORMANCE_CHECKS:
        raise pytest.UsageError(
            f"{item.nodeid}: {MARKER} needs one registered check id, got {marker.args!r}"
        )
    return CONFORMANCE_CHECKS[marker.args[0]]
