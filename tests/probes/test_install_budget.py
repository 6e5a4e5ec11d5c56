"""A cross-release run keeps at most N of the installs it makes, and never the user's."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_probe.harness.codex.installs import list_installs
from codex_probe.probes.releases.budget import InstallBudget
from tests.fake_installs import fake_install


def on_disk() -> list[str]:
    return sorted(install.version for install in list_installs())


def test_installs_made_by_the_run_are_trimmed_to_the_budget_oldest_first(
    install_cache: Path,
) -> None:
    fake_install(install_cache, "0.9.0")  # the user's, from before the run
    budget = InstallBudget(keep=2)
    for version in ("0.1.0", "0.2.0", "0.3.0"):
        fake_install(install_cache, version)  # as if npm had just installed it
        budget.use(version)
    assert on_disk() == ["0.2.0", "0.3.0", "0.9.0"]
    assert budget.removed == ["0.1.0"]


def test_a_protected_install_stays_and_a_younger_one_goes_in_its_place(install_cache: Path) -> None:
    budget = InstallBudget(keep=1)
    fake_install(install_cache, "0.1.0")
    budget.use("0.1.0")
    fake_install(install_cache, "0.2.0")
    budget.use("0.2.0", protect={"0.1.0"})
    assert on_disk() == ["0.1.0", "0.2.0"]  # over budget rather than drop a protected one
    fake_install(install_cache, "0.3.0")
    budget.use("0.3.0")
    assert on_disk() == ["0.3.0"]


def test_a_budget_of_no_installs_is_refused() -> None:
    with pytest.raises(ValueError, match="keep at least one install"):
        InstallBudget(keep=0)
