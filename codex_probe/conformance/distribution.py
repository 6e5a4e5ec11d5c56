"""How conformance checks spread over pytest-xdist workers: each target's on one worker.

The checks that run last (CONF-WIRE-*) read everything a target's tests said and heard,
so all of a target's tests must run in one process. Under `--dist loadgroup` the plugin
hands xdist a scheduler that keeps each target's tests together as one unit of work and
shares every other test out one by one, as loadgroup does for unmarked tests.

Not the `xdist_group` mark: pytest-xdist 3.8 carries a mark's group in the test's node id,
which pytest 9.2's structured node ids no longer let it change, so the mark groups nothing
(pytest-dev/pytest-xdist#1386). The controller sees only node ids, and a target's label
is in each of its tests' ids, so the scheduler groups by that.
"""

from __future__ import annotations

from typing import Any

import pytest

from codex_probe.conformance.options import targets_from_options


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is a pytest-xdist worker (its reports go to the main process)."""
    return hasattr(config, "workerinput")


def target_scope(nodeid: str, labels: list[str]) -> str | None:
    """The label of the target `nodeid` runs on, or None for a test without one.

    The label is the id the plugin gives the `codex_backend` parameter; pytest joins it
    to the test's other parameter ids with '-', inside the last brackets.
    """
    start = nodeid.rfind("[")
    if start < 0 or not nodeid.endswith("]"):
        return None
    ids = f"-{nodeid[start + 1 : -1]}-"
    return next((label for label in labels if f"-{label}-" in ids), None)


def make_scheduler(config: pytest.Config, log: Any) -> Any:
    """A loadgroup scheduler whose groups are the conformance targets."""
    from xdist.scheduler import LoadGroupScheduling  # only ever called by pytest-xdist

    labels = [target.label for target in targets_from_options(config)]

    class TargetScheduling(LoadGroupScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            scope = target_scope(nodeid, labels)
            return f"codex target {scope}" if scope is not None else nodeid

    return TargetScheduling(config, log)
