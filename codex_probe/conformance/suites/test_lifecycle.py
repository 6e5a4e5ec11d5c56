"""CONF-LIFECYCLE-001: random thread and turn lifecycles keep the protocol invariants.

A failure prints hypothesis's shortest failing sequence (`state = LifecycleMachine()`,
then one line per step) and a command that replays the run with the same seed.
"""

from __future__ import annotations

import asyncio
import random
import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, seed, settings
from hypothesis.internal.conjecture import engine as hypothesis_engine
from hypothesis.stateful import run_state_machine_as_test

from codex_probe.conformance.lifecycle import MachineConfig, make_machine
from codex_probe.conformance.marks import check
from codex_probe.conformance.prestart import Prestarter
from codex_probe.conformance.state import state_of
from codex_probe.conformance.wire import WireLog
from codex_probe.rig.backends import Backend

MAX_STEPS = 8
ENTRY_POINT_NAME = "codex_probe"  # the pytest11 entry point that loads conformance.plugin
# Each shrink attempt starts app-server processes; hypothesis's own bound is 300 s.
SHRINK_BUDGET_S = 60


@contextmanager
def shrink_budget(seconds: int) -> Iterator[None]:
    """Bound hypothesis's shrinking time (an engine constant; left alone if it is gone)."""
    before = getattr(hypothesis_engine, "MAX_SHRINKING_SECONDS", None)
    if not isinstance(before, int):
        yield
        return
    hypothesis_engine.MAX_SHRINKING_SECONDS = min(before, seconds)
    try:
        yield
    finally:
        hypothesis_engine.MAX_SHRINKING_SECONDS = before


def replay_command(
    request: pytest.FixtureRequest, backend: Backend, examples: int, used: int
) -> str:
    """One command that replays this run: same target, example count and seed."""
    config = request.config
    words = ["pytest"]
    if not config.pluginmanager.has_plugin(ENTRY_POINT_NAME):
        words += ["-p", "codex_probe.conformance.plugin"]
    words += [
        request.node.nodeid,
        "--codex-backend",
        backend.kind,
        "--codex-version",
        backend.version,
        "--codex-lifecycle-examples",
        str(examples),
        "--codex-timeout",
        f"{config.getoption('codex_timeout'):g}",
        f"--hypothesis-seed={used}",
    ]
    if config.getoption("codex_fake_script"):
        words += ["--codex-fake-script", str(config.getoption("codex_fake_script"))]
    return shlex.join(words)


@check(
    "CONF-LIFECYCLE-001",
    title="random thread and turn lifecycles keep the protocol invariants",
    protects="spec 4.5-4.7 as a whole: one answer per request, paired turns, legal statuses, "
    "a server that never exits on its own",
)
def test_random_lifecycles_keep_the_protocol_invariants(
    codex_backend: Backend,
    codex_wire_log: WireLog,
    codex_conformance_timeout: float,
    request: pytest.FixtureRequest,
    tmp_path: Path,
) -> None:
    state = state_of(request.config)
    given = request.config.getoption("hypothesis_seed", default=None)
    used = int(given) if given is not None else random.SystemRandom().randrange(2**32)
    runner = asyncio.Runner()
    prestarter = Prestarter(runner, codex_backend, tmp_path, codex_conformance_timeout)
    machine = make_machine(
        MachineConfig(
            backend=codex_backend,
            timeout=codex_conformance_timeout,
            wire_log=codex_wire_log,
            source=request.node.nodeid,
            prestarter=prestarter,
        )
    )
    seeded = seed(used)(machine)
    try:
        with shrink_budget(SHRINK_BUDGET_S):
            run_state_machine_as_test(
                seeded,
                settings=settings(
                    max_examples=state.lifecycle_examples,
                    stateful_step_count=MAX_STEPS,
                    deadline=None,
                    print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
                ),
            )
    except (KeyboardInterrupt, SystemExit):
        raise  # the person stopped the run: there is nothing to reproduce
    except BaseException as error:  # pytest.fail's Failed is a BaseException too
        error.add_note(
            "Reproduce with: "
            + replay_command(request, codex_backend, state.lifecycle_examples, used)
        )
        raise
    finally:
        try:
            prestarter.close()
        finally:
            runner.close()
