"""The lifecycle check's steps: each within its deadline, and a Ctrl-C never lost."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_probe.conformance.prestart import Prestarter
from codex_probe.rig.backends import Backend


@pytest.fixture
def prestarter(tmp_path: Path) -> Iterator[Prestarter]:
    # run() never starts a process: the backend is only named.
    backend = Backend(kind="fake", version="0.171.0", binary=tmp_path / "codex", schema_folder=None)
    with asyncio.Runner() as runner:
        yield Prestarter(runner, backend, tmp_path, timeout=5.0)


@pytest.fixture
def python_handles_ctrl_c() -> Iterator[None]:
    """Python's own SIGINT handler, under which asyncio.Runner turns a Ctrl-C into
    cancelling the step. A run started in the background without job control inherits
    SIGINT ignored, and Python then leaves it ignored."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.usefixtures("python_handles_ctrl_c")
def test_a_ctrl_c_that_arrives_as_a_step_finishes_still_interrupts_the_check(
    prestarter: Prestarter,
) -> None:

    async def step() -> str:
        # The Ctrl-C lands after the step's work is done and before the step returns: the
        # moment where Python 3.11's asyncio.wait_for hands back the result instead.
        asyncio.get_running_loop().call_soon(signal.raise_signal, signal.SIGINT)
        return "done"

    with pytest.raises(KeyboardInterrupt):
        prestarter.run(step(), timeout=5.0)


@pytest.mark.usefixtures("python_handles_ctrl_c")
def test_a_ctrl_c_a_step_turns_into_an_error_of_its_own_still_interrupts_the_check(
    prestarter: Prestarter,
) -> None:

    async def step() -> None:
        try:
            signal.raise_signal(signal.SIGINT)
            await asyncio.sleep(10)
        finally:
            raise RuntimeError("a cleanup failed on the way out")

    with pytest.raises(KeyboardInterrupt):
        prestarter.run(step(), timeout=5.0)


@pytest.mark.usefixtures("python_handles_ctrl_c")
def test_a_ctrl_c_a_step_swallows_still_interrupts_the_check(prestarter: Prestarter) -> None:

    async def step() -> str:
        signal.raise_signal(signal.SIGINT)
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            return "went on"
        return "slept"

    with pytest.raises(KeyboardInterrupt):
        prestarter.run(step(), timeout=5.0)


def test_a_step_past_its_deadline_ends_in_a_timeout(prestarter: Prestarter) -> None:
    with pytest.raises(TimeoutError):
        prestarter.run(asyncio.sleep(10), timeout=0.05)
    assert prestarter.run(asyncio.sleep(0, result="next"), timeout=1.0) == "next"
