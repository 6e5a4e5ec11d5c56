from __future__ import annotations

import pytest

from codex_probe.conformance.registry import MARKER


def pytest_configure(config: pytest.Config) -> None:
    # The suites are imported here to be inspected; their marker is the plugin's (which
    # registers it too once installed as the `codex_probe` pytest11 entry point).
    config.addinivalue_line("markers", f"{MARKER}(id): a conformance check")
