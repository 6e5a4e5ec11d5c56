"""Out of sample: the same work nobody learned from, run on the real release and on a fake
of it, compared step by step (holdout_compare.py).

The work (probes/explore/resample.py) is drawn from the release's schema with `seed`: the
sweep, every method's resampled calls in the states where the exploration calls it, and
`walks` seeded walks of `steps` steps whose calls are resampled too (the walk of seed S
draws its calls as the sweep of seed S does, so `--seed S --walks 1 --no-sweep` replays
it alone). It runs on the real release, then (with a control) on the real release again,
then on the other backend, one after the other: two runs at once on two cores would make
the real one's timing part of what is compared.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from codex_probe.probes.domain.surface.enumerated import MessageSchemas
from codex_probe.probes.explore.plan import Plan
from codex_probe.probes.explore.resample import RESAMPLED, Resampled, resample
from codex_probe.probes.explore.run import explore
from codex_probe.probes.explore.walks import DEFAULT_STEPS
from codex_probe.probes.releases.holdout_compare import Comparison, compare
from codex_probe.rig.backends import Backend


@dataclass(frozen=True)
class Work:
    """What is run on every backend: the sweep (or none), and the walks' seeds."""

    seed: int
    sweep: Resampled
    walks: int = 3
    steps: int = DEFAULT_STEPS
    run_sweep: bool = True
    cells: frozenset[str] = frozenset()

    @property
    def plan(self) -> Plan:
        return self.sweep.plan.only(set(self.cells)) if self.cells else self.sweep.plan

    @property
    def seeds(self) -> list[int]:
        return [self.seed + number for number in range(self.walks)]


@dataclass
class Holdout:
    version: str
    work: Work
    real: dict[str, Any]
    other: dict[str, Any]
    control: dict[str, Any] | None
    comparison: Comparison
    seconds: dict[str, float] = field(default_factory=dict)


def make_work(
    backend: Backend,
    *,
    seed: int,
    walks: int,
    steps: int,
    run_sweep: bool = True,
    cells: frozenset[str] = frozenset(),
) -> Work:
    return Work(seed, resample(backend.schema_dir, seed), walks, steps, run_sweep, cells)


async def run_work(backend: Backend, work: Work) -> dict[str, Any]:
    """The work on `backend`: an exploration record (record.py's JSON) of the sweep's cells
    and the walks."""
    record = await explore(backend, plan=work.plan, seed=work.seed, sweep=work.run_sweep)
    found = record.to_json()
    for seed in work.seeds:
        plan = work.sweep.plan if seed == work.seed else resample(backend.schema_dir, seed).plan
        walked = await explore(
            backend,
            plan=plan,
            seed=seed,
            sweep=False,
            walks=1,
            steps=work.steps,
            walk_variants=(RESAMPLED,),
        )
        found["walks"] += walked.to_json()["walks"]
        found["surprises"] += walked.to_json()["surprises"]
    return found


async def holdout(real: Backend, other: Backend, work: Work, *, control: bool = False) -> Holdout:
    """The work on `real`, on `real` again if `control`, then on `other`, compared."""
    seconds: dict[str, float] = {}

    async def timed(name: str, backend: Backend) -> dict[str, Any]:
        began = time.monotonic()
        found = await run_work(backend, work)
        seconds[name] = round(time.monotonic() - began, 1)
        return found

    real_record = await timed("real", real)
    control_record = await timed("control", real) if control else None
    other_record = await timed(other.kind, other)
    schemas = MessageSchemas(real.schema_dir)
    compared = compare(real_record, other_record, schemas, control_record)
    return Holdout(real.version, work, real_record, other_record, control_record, compared, seconds)
