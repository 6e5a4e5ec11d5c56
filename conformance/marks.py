"""`@check("CONF-...")`: the marker that makes a test a registered conformance check."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from conformance.registry import MARKER, get_check

F = TypeVar("F", bound=Callable[..., Any])


def check(check_id: str) -> Callable[[F], F]:
    """Mark a test as the check `check_id` (which must be registered)."""
    get_check(check_id)
    marker: Callable[[F], F] = getattr(pytest.mark, MARKER)(check_id)
    return marker
