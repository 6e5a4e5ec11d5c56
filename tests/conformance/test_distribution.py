"""Which xdist unit of work a test belongs to: its conformance target, or itself."""

from __future__ import annotations

import pytest

from codex_probe.conformance.distribution import target_scope

LABELS = ["fake-0.120.0", "fake-0.171.0", "real-0.171.0"]


@pytest.mark.parametrize(
    ("nodeid", "scope"),
    [
        ("codex_probe/conformance/suites/test_turns.py::test_steer[fake-0.171.0]", "fake-0.171.0"),
        ("suite/test_x.py::TestA::test_b[real-0.171.0-case-1]", "real-0.171.0"),
        ("suite/test_x.py::test_b[case-1-fake-0.120.0]", "fake-0.120.0"),
        ("suite/test_x.py::test_b[real-0.120.0]", None),  # not a target of this run
        ("suite/test_x.py::test_b[fake-0.171.0.1]", None),  # a label only as a whole id part
        ("tests/test_plain.py::test_plain", None),
        ("tests/test_plain.py::test_plain[fake-0.171.0]::inner", None),
    ],
)
def test_a_test_is_grouped_by_the_target_label_among_its_parameter_ids(
    nodeid: str, scope: str | None
) -> None:
    assert target_scope(nodeid, LABELS) == scope
