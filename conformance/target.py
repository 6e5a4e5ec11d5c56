"""What a parametrized conformance check runs on: one backend kind, one codex-cli version."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    kind: str
    version: str

    @property
    def label(self) -> str:
        return f"{self.kind}-{self.version}"
