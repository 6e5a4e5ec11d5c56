"""A cell that was not run, and why: its state not reached, no copy of it, or the lane's
app-server gone before it."""

from __future__ import annotations

from codex_probe.harness.jsonrpc.errors import TransportError
from codex_probe.probes.explore.lane import Lane
from codex_probe.probes.explore.plan import Cell
from codex_probe.probes.explore.record import CellRecord


def not_run(cell: Cell, why: str) -> CellRecord:
    return CellRecord(cell.method, cell.state, cell.variant, cell.kind, cell.params, why=why)


def ended(lane: Lane, rest: list[Cell], error: TransportError) -> list[CellRecord]:
    """The cells after the app-server ended or stopped answering: not run, and why."""
    what = f"the app-server stopped: {error.summary}"
    if rest:
        lane.surprise(what, rest[0])
    return [not_run(cell, what) for cell in rest]
