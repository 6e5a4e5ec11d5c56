from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from codex_probe.harness.codex.install import Installation, install
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION

# No per-example deadline for the property tests, and no health check on how long data
# generation takes: both time the machine, not the code. On a busy 2-core CI runner an
# example that takes 3 ms took 381 ms once and failed the run; speed is bench/'s job.
settings.register_profile(
    "codex-probe-tests", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("codex-probe-tests")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked starts_early first, the rest in their order: pytest-xdist hands tests
    out in collection order, and a long one handed out last is the run's tail (the wheel
    test kept one worker busy 11-12 s after the other three were done)."""
    items.sort(key=lambda item: item.get_closest_marker("starts_early") is None)


@pytest.fixture(autouse=True)
def _an_empty_working_directory(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every test runs in an empty folder of its own, so what the checkout holds (the
    reports/ that `./nox -s probe` leaves, as the README's quickstart runs it first) can
    change no test, and no test writes into the checkout. A test that needs a file of the
    checkout names it by its absolute path (`Path(__file__).parents[N]`)."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


@pytest.fixture(scope="session")
def default_codex() -> Installation:
    """The default codex-cli version from npm (cached per user after the first run)."""
    installation = install(DEFAULT_CODEX_VERSION)
    ensure_schema(installation)
    return installation


@pytest.fixture
def install_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty codex-probe cache of the test's own ($CODEX_PROBE_CACHE points at it)."""
    root = tmp_path / "cache"
    monkeypatch.setenv("CODEX_PROBE_CACHE", str(root))
    return root
