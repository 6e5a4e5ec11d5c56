"""`codex-probe holdout` end to end: the default release's out-of-sample work on the real
codex-cli and on its checked-in fake, compared; and what it refuses before running."""

from __future__ import annotations

import json
from pathlib import Path

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from tests.cli import codex_probe

START = "thread/start none resampled"
READ = "thread/read idle resampled"


def test_holdout_counts_the_differing_steps_and_names_each_with_what_replays_it(
    default_codex: Installation, tmp_path: Path
) -> None:
    record = tmp_path / "holdout.json"
    done = codex_probe(
        "holdout",
        "--codex",
        DEFAULT_CODEX_VERSION,
        "--walks",
        "1",
        "--steps",
        "4",
        "--json",
        "--record",
        str(record),
    )
    answer = json.loads(done.stdout)
    counts = answer["counts"]
    assert done.returncode == (1 if counts["differing %"] > 2 else 0), done.stderr
    assert counts["walk steps"] == 4
    assert counts["sweep"] > 100  # every method the exploration sends validly, resampled
    assert counts["steps"] == counts["sweep"] + counts["walk steps"]
    assert counts["differing"] == len(answer["differing"])
    assert counts["unstable"] == 0  # no control: nothing is counted apart
    assert set(answer["seconds"]) == {"real", "fake"}
    for step in answer["differing"]:
        assert step["real"] != step["other"]
        assert step["reproduce"].startswith(f"codex-probe holdout --codex {DEFAULT_CODEX_VERSION}")
    walked = [step for step in answer["differing"] if "walk" in step]
    for step in walked:
        assert step["reproduce"].endswith("--walks 1 --steps 4 --no-sweep")
        assert step["sequence"][0] == "1. start -> T0"
    written = json.loads(record.read_text())
    assert len(written["steps"]) == counts["steps"]
    assert written["records"]["real"]["version"] == DEFAULT_CODEX_VERSION


def test_with_a_control_the_real_release_runs_twice_and_its_own_differences_are_apart(
    default_codex: Installation,
) -> None:
    done = codex_probe(
        "holdout",
        "--codex",
        DEFAULT_CODEX_VERSION,
        "--cell",
        START,
        "--cell",
        READ,
        "--walks",
        "0",
        "--control",
    )
    assert done.returncode in (0, 1), done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == (
        f"codex-cli {DEFAULT_CODEX_VERSION}, out of sample (seed 1): 2 steps "
        "(2 calls of the sweep, 0 steps of 0 walk(s))"
    )
    assert lines[1].startswith("  in real ") and ", control " in lines[1]
    assert any(
        line.startswith("  control: the real release differs from itself on") for line in lines
    )


def test_a_cell_not_in_the_sweep_or_a_missing_profile_is_a_usage_error(
    default_codex: Installation, tmp_path: Path
) -> None:
    unknown = codex_probe(
        "holdout", "--codex", DEFAULT_CODEX_VERSION, "--cell", "thread/start none minimal"
    )
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == (
        "codex-probe holdout: no cell 'thread/start none minimal' in the sweep of seed 1"
    )
    missing = codex_probe(
        "holdout", "--codex", DEFAULT_CODEX_VERSION, "--profile", str(tmp_path / "none.json")
    )
    assert missing.returncode == 2
    assert (
        missing.stderr.strip() == f"codex-probe holdout: no profile file {tmp_path / 'none.json'}"
    )
