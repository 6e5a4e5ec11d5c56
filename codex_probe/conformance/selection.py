"""Which tests run, on what, in what order: a test asking for `codex_backend` once per
target, only the checks --codex-check names, one test per check and target, and
the checks that read the whole run last."""

from __future__ import annotations

import pytest

from codex_probe.conformance.marks import check_of
from codex_probe.conformance.registry import conformance_checks
from codex_probe.conformance.state import state_of
from codex_probe.conformance.target import Target, target_of


def parametrize_by_target(metafunc: pytest.Metafunc) -> None:
    if "codex_backend" not in metafunc.fixturenames:
        return
    targets = state_of(metafunc.config).targets
    metafunc.parametrize(
        "codex_backend",
        targets,
        ids=[t.label for t in targets],
        indirect=True,
        scope="session",
    )


def select_checks(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect what --codex-check leaves out and move run-last checks to the end."""
    wanted = config.getoption("codex_check")
    if wanted:
        unknown = sorted(set(wanted) - set(conformance_checks()))
        if unknown:
            raise pytest.UsageError(f"unknown conformance check id(s): {', '.join(unknown)}")
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        check = check_of(item)
        if wanted and (check is None or check.id not in wanted):
            dropped.append(item)
        else:
            keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    refuse_duplicates(keep)
    last = [item for item in keep if (check := check_of(item)) is not None and check.runs_last]
    items[:] = [item for item in keep if item not in last] + last


def refuse_duplicates(items: list[pytest.Item]) -> None:
    """A check is one test per target: the baseline and the results key on the pair."""
    seen: dict[tuple[str, Target], str] = {}
    for item in items:
        check, target = check_of(item), target_of(item)
        if check is not None and target is not None:
            other = seen.setdefault((check.id, target), item.nodeid)
            if other != item.nodeid:
                raise pytest.UsageError(
                    f"{check.id} on {target.label} is both {other} and {item.nodeid}: "
                    "a check is one test per target (the baseline keys on it)"
                )
