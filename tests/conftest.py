from __future__ import annotations

from pathlib import Path

import pytest

from harness.codex.install import Installation, install
from harness.codex.schema import ensure_schema
from harness.codex.versions import DEFAULT_CODEX_VERSION


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
