from __future__ import annotations

import pytest

from harness.codex import DEFAULT_CODEX_VERSION, Installation, ensure_schema, install


@pytest.fixture(scope="session")
def default_codex() -> Installation:
    """The default codex-cli version from npm (cached per user after the first run)."""
    installation = install(DEFAULT_CODEX_VERSION)
    ensure_schema(installation)
    return installation
