"""What an exploration recorded: every cell's call and what came back, in plain JSON.

exploration.json (`codex-probe explore --record FILE`), format 1:

    {"format": 1, "version": "0.171.0", "seed": 0,
     "methods": [...],                      every client method of the schema
     "states": {"idle": null, "rolled-back": "why it could not be reached", ...},
     "cells": [{"method", "state", "variant", "kind", "params",
                "outcome": "answered" | "refused" | "unanswered" | "not run",
                "result" | "error", "notifications": [{"method", "params"}],
                "server_requests": [{"method", "params", "answer"}],
                "violations": [...], "unsettled": "what did not come", "why": "...",
                "outbound": ["CONNECT host:443", ...]}],
     "unsent": [{"method", "variant", "why"}],
     "outbound": {"none": ["CONNECT chatgpt.com:443", ...], "threads": [...]},
     "walks": [{"seed", "steps": [...], "done", "answers": [...],
                "outcomes": [each step's answer: {"method", "result" | "error"}, or
                             what a lifecycle step said], "surprise"}],
     "surprises": [{"what", "cell" | "walk", "steps", "reproduce"}]}

Params keep their placeholders (fixtures.py); answers and notifications have the values
the placeholders stood for put back as placeholders, so a learner fills them anew and two
runs say the same. The surface reads its `exploration` aspect from this
(probes/domain/surface/exploration.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

FORMAT = 1
Outcome = Literal["answered", "refused", "unanswered", "not run"]


@dataclass
class CellRecord:
    method: str
    state: str
    variant: str
    kind: str
    params: Any
    outcome: Outcome = "not run"
    result: Any = None
    error: dict[str, Any] | None = None
    notifications: list[dict[str, Any]] = field(default_factory=list)
    server_requests: list[dict[str, Any]] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    unsettled: str | None = None
    why: str | None = None  # why a cell did not run
    # Outbound HTTP codex asked for while the cell ran (outbound.py), refused.
    outbound: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.method} {self.state} {self.variant}"

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "method": self.method,
            "state": self.state,
            "variant": self.variant,
            "kind": self.kind,
            "params": self.params,
            "outcome": self.outcome,
        }
        if self.outcome == "answered":
            found["result"] = self.result
        if self.error is not None:
            found["error"] = self.error
        for name in ("notifications", "server_requests", "violations", "outbound"):
            if getattr(self, name):
                found[name] = getattr(self, name)
        if self.unsettled is not None:
            found["unsettled"] = self.unsettled
        if self.why is not None:
            found["why"] = self.why
        return found


@dataclass(frozen=True)
class Surprise:
    """A step that surprised the exploration: a crash, a hang past its deadline, or an
    answer (or notification) that does not validate against the release's own schema."""

    what: str
    where: str  # a cell's key, or "walk SEED step N"
    steps: tuple[str, ...]
    reproduce: str

    def to_json(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "where": self.where,
            "steps": list(self.steps),
            "reproduce": self.reproduce,
        }


@dataclass
class ExplorationRecord:
    version: str
    seed: int
    methods: list[str] = field(default_factory=list)
    states: dict[str, str | None] = field(default_factory=dict)
    cells: list[CellRecord] = field(default_factory=list)
    unsent: list[dict[str, str]] = field(default_factory=list)
    outbound: dict[str, list[str]] = field(default_factory=dict)
    walks: list[dict[str, Any]] = field(default_factory=list)
    surprises: list[Surprise] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": self.version,
            "seed": self.seed,
            "methods": self.methods,
            "states": self.states,
            "cells": [cell.to_json() for cell in self.cells],
            "unsent": self.unsent,
            "outbound": self.outbound,
            "walks": self.walks,
            "surprises": [surprise.to_json() for surprise in self.surprises],
        }

    def counts(self) -> dict[str, int]:
        """How many methods, states and variants were called, and cells in all."""
        ran = [cell for cell in self.cells if cell.outcome != "not run"]
        return {
            "methods": len({cell.method for cell in ran if cell.kind != "approval"}),
            "server requests": len({cell.method for cell in ran if cell.kind == "approval"}),
            "states": len({cell.state for cell in ran}),
            "variants": len({cell.variant for cell in ran}),
            "cells": len(ran),
            "answered": sum(1 for cell in ran if cell.outcome == "answered"),
            "refused": sum(1 for cell in ran if cell.outcome == "refused"),
            "unanswered": sum(1 for cell in ran if cell.outcome == "unanswered"),
            "not run": len(self.cells) - len(ran),
        }
