"""A real app-server runs on one CPU, the CPUs taken in turn (harness/codex/one_cpu.py)."""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import sys
from pathlib import Path

import pytest

from codex_probe.harness.codex import one_cpu
from codex_probe.harness.codex.appserver import open_app_server

TWO_CPUS = pytest.mark.skipif(
    len(one_cpu.allowed_cpus()) < 2 or shutil.which(one_cpu.TASKSET) is None,
    reason="needs two CPUs and util-linux's taskset",
)

# A stand-in app-server: says on which CPUs it may run, then waits for its stdin to close.
STAND_IN = (
    "import json, os, sys\n"
    "cpus = sorted(os.sched_getaffinity(0))\n"
    "print(json.dumps({'method': 'cpus', 'params': {'cpus': cpus}}), flush=True)\n"
    "sys.stdin.read()\n"
)


@TWO_CPUS
def test_the_next_cpu_takes_every_allowed_cpu_in_turn() -> None:
    cpus = one_cpu.allowed_cpus()
    taken = [one_cpu.next_cpu() for _ in range(2 * len(cpus))]
    assert set(taken) == set(cpus)
    assert all(taken.count(cpu) == 2 for cpu in cpus), taken
    assert all(a != b for a, b in itertools.pairwise(taken)), taken


def test_a_command_without_taskset_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    assert one_cpu.on_one_cpu(["codex", "app-server"]) == ["codex", "app-server"]


def test_a_command_with_one_cpu_to_run_on_is_left_as_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(one_cpu, "allowed_cpus", lambda: [0])
    assert one_cpu.on_one_cpu(["codex"], taskset="/usr/bin/taskset") == ["codex"]


@TWO_CPUS
@pytest.mark.parametrize("pinned", [True, False], ids=["one_cpu", "left to the kernel"])
def test_an_app_server_asked_to_run_on_one_cpu_runs_on_exactly_one(
    tmp_path: Path, pinned: bool
) -> None:
    script = tmp_path / "stand_in.py"
    script.write_text(STAND_IN, encoding="utf-8")
    launcher = tmp_path / "app-server"  # what open_app_server runs: BINARY app-server ...
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {script}\n", encoding="utf-8")
    launcher.chmod(0o755)

    async def cpus_seen() -> list[list[int]]:
        seen = []
        for _ in range(2):
            client, _ = await open_app_server(
                launcher,
                env={"PATH": os.environ["PATH"]},
                cwd=tmp_path,
                initialize=False,
                one_cpu=pinned,
            )
            async with client:
                said = await client.wait_for_notification("cpus", timeout=30)
            seen.append(said.params["cpus"])
        return seen

    seen = asyncio.run(cpus_seen())
    if pinned:
        assert all(len(cpus) == 1 for cpus in seen), seen
        assert seen[0] != seen[1], seen  # the second on the next CPU
    else:
        assert seen == [one_cpu.allowed_cpus()] * 2, seen
