"""What a parametrized conformance check runs on: one backend kind, one codex-cli version."""

from __future__ import annotations

from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class Target:
    kind: str
    version: str

    @property
    def label(self) -> str:
        return f"{self.kind}-{self.version}"


def target_of(item: pytest.Item) -> Target | None:
    """The target a collected test runs on, None for a test not parametrized by one."""
    callspec = getattr(item, "callspec", None)
    value = callspec.params.get("codex_backend") if callspec is not None else None
    return value if isinstance(value, Target) else None
