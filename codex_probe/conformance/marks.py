"""`@check("CONF-...", title=..., protects=...)`: a test declared as a conformance check,
in one place (the registry learns it from here)."""

from __future__ import annotations

import pytest

from codex_probe.conformance.registry import MARKER, ConformanceCheck, conformance_checks, declare


def check(
    check_id: str, *, title: str, protects: str, runs_last: bool = False
) -> pytest.MarkDecorator:
    """Declare the check `check_id` (what it pins, and the spec section or rule that breaks
    if it fails; `runs_last`: it reads what the whole run recorded) and mark the test with
    it: a decorator of a test function, or the `marks` of one `pytest.param`."""
    declare(ConformanceCheck(check_id, title, protects, runs_last))
    marker: pytest.MarkDecorator = getattr(pytest.mark, MARKER)(check_id)
    return marker


def check_of(item: pytest.Item) -> ConformanceCheck | None:
    """The check a collected test is, None for a test that is no check."""
    checks = conformance_checks()
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        return None
    if len(marker.args) != 1 or marker.args[0] not in checks:
        raise pytest.UsageError(
            f"{item.nodeid}: {MARKER} needs one declared check id, got {marker.args!r}"
        )
    return checks[marker.args[0]]
