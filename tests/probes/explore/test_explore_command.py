"""`codex-probe explore`: what it called, what surprised it and how to replay it, on the real
codex-cli."""

from __future__ import annotations

import json
from pathlib import Path

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION, SPEC_CODEX_VERSION
from codex_probe.probes.explore.record import FORMAT
from tests.cli import codex_probe

START = "thread/start none minimal"
READ = "thread/read idle minimal"
# 0.120.0 never answers a turn/interrupt of a turn that has ended (measured: 8 of 8 cells).
HANG = "turn/interrupt idle minimal"


def test_explore_says_how_many_methods_states_and_variants_it_called(
    default_codex: Installation, tmp_path: Path
) -> None:
    record = tmp_path / "exploration.json"
    done = codex_probe(
        "explore",
        "--codex",
        DEFAULT_CODEX_VERSION,
        "--cell",
        START,
        "--cell",
        READ,
        "--walks",
        "0",
        "--record",
        str(record),
    )
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith(f"codex-cli {DEFAULT_CODEX_VERSION}: 2 methods x 2 states x 1 variants")
    assert "nothing surprised the exploration" in done.stdout
    written = json.loads(record.read_text())
    assert written["format"] == FORMAT
    assert {f"{c['method']} {c['state']} {c['variant']}" for c in written["cells"]} == {START, READ}
    started = next(c for c in written["cells"] if c["method"] == "thread/start")
    assert started["outcome"] == "answered"
    assert started["result"]["thread"]["cwd"] == "{{work}}"


def test_a_cell_the_release_has_not_is_a_usage_error(default_codex: Installation) -> None:
    done = codex_probe(
        "explore", "--codex", DEFAULT_CODEX_VERSION, "--cell", "no/such none minimal"
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "codex-probe explore: no cell 'no/such none minimal' in codex-cli "
        f"{DEFAULT_CODEX_VERSION}'s plan"
    ]


def test_a_request_left_unanswered_is_a_surprise_with_the_command_that_replays_it() -> None:
    done = codex_probe("explore", "--codex", SPEC_CODEX_VERSION, "--cell", HANG, "--walks", "0")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"- {HANG}: no answer within 10 s" in done.stdout
    assert "    thread/fork (a copy for this call)" in done.stdout
    assert (
        f"  Reproduce with: codex-probe explore --codex {SPEC_CODEX_VERSION} --walks 0 "
        f"--cell '{HANG}'" in done.stdout
    )


def test_a_method_left_unanswered_once_waits_less_on_the_lanes_next_thread_without_a_turn() -> None:
    again = "turn/interrupt idle full"
    done = codex_probe(
        "explore", "--codex", SPEC_CODEX_VERSION, "--cell", HANG, "--cell", again, "--walks", "0"
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"- {HANG}: no answer within 10 s" in done.stdout
    assert f"- {again}: no answer within 2 s" in done.stdout


def test_one_cell_of_a_state_reached_by_another_method_is_reached(
    default_codex: Installation,
) -> None:
    # The rolled-back state needs thread/rollback, which the cell asked for does not call:
    # a replay of one cell once could not reach it (the lab knew only the cells' methods).
    done = codex_probe(
        "explore",
        "--codex",
        DEFAULT_CODEX_VERSION,
        "--walks",
        "0",
        "--cell",
        "thread/read rolled-back minimal",
    )
    assert done.returncode == 0, done.stderr
    assert "not reached" not in done.stdout
    assert "1 calls (1 answered" in done.stdout.splitlines()[0]
