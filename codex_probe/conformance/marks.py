"""`@check("CONF-...", title=..., protects=...)`: a test declared as a conformance check,
in one place (the registry learns it from here)."""

from __future__ import annotations

import pytest

from codex_probe.conformance.registry import (
    MARKER,
    ConformanceCheck,
    conformance_checks,
    declare,
    declared,
)


def check(
    check_id: str,
    *,
    title: str | None = None,
    protects: str | None = None,
    runs_last: bool = False,
) -> pytest.MarkDecorator:
    """Declare the check `check_id` (what it pins, and the spec section or rule that breaks
    if it fails; `runs_last`: it reads what the whole run recorded) and mark the test with
    it: a decorator of a test function, or the `marks` of one `pytest.param`.

    Without a title, the test is marked as a check the suites declare (another project's
    test of the same contract, say), which must exist.
    """
    if title is None or protects is None:
        if check_id not in conformance_checks():
            raise KeyError(f"unknown conformance check id {check_id!r}")
    else:
        declare(ConformanceCheck(check_id, title, protects, runs_last))
    marker: pytest.MarkDecorator = getattr(pytest.mark, MARKER)(check_id)
    return marker


def check_of(item: pytest.Item) -> ConformanceCheck | None:
    """The check a collected test is, None for a test that is no check."""
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        return None
    found = declared(marker.args[0]) if len(marker.args) == 1 else None
    if found is None:
        raise pytest.UsageError(
            f"{item.nodeid}: {MARKER} needs one declared check id, got {marker.args!r}"
        )
    return found
