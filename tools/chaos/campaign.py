"""The rows in the order they run, and how one row is run: its own folder, its deadline,
and every process it started ended when it is done, whatever happened."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tools.chaos import processes
from tools.chaos.context import Context
from tools.chaos.row import Observed, Row
from tools.chaos.rows import (
    bad_inputs,
    churn,
    codex_home,
    etc_codex,
    hang,
    hostile,
    interrupts,
    kills,
    network,
    old_releases,
    prune,
    secrets,
)

ROWS: list[Row] = [
    *bad_inputs.ROWS,
    *hang.ROWS,
    *interrupts.ROWS,
    *kills.ROWS,
    *prune.ROWS,
    *churn.ROWS,
    *etc_codex.ROWS,
    *secrets.ROWS,
    *network.ROWS,
    *codex_home.ROWS,
    *old_releases.ROWS,
    *hostile.ROWS,
]


@dataclass(frozen=True)
class Result:
    row: Row
    observed: Observed
    seconds: float


def run_row(row: Row, folder: Path, cache: Path, rng: random.Random, deadline_s: float) -> Result:
    folder.mkdir(parents=True)
    ctx = Context(folder, cache, rng)
    expired = threading.Event()

    def past_deadline() -> None:
        expired.set()
        ctx.end()  # the row's waits end as its processes do

    timer = threading.Timer(deadline_s, past_deadline)
    started = time.monotonic()
    timer.start()
    try:
        seen = row.check(ctx)
    except Exception as error:  # a row that breaks is a failed row, and the campaign goes on
        seen = Observed(False, f"{type(error).__name__}: {error}")
    finally:
        timer.cancel()
        leftovers = ctx.end()
    if expired.is_set():
        seen = Observed(False, f"past its {deadline_s:.0f} s deadline; {seen.text}")
    elif leftovers:
        note = f"; the row ended {len(leftovers)} leftover process(es)"
        seen = Observed(seen.passed, seen.text + note)
    return Result(row, seen, time.monotonic() - started)


def become_subreaper() -> None:
    processes.become_subreaper()
