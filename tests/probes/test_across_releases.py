"""bisect and history on real codex-cli releases around the move of the base instructions.

0.162.0 is the first release that sends baseInstructions as a developer message instead
of the request's `instructions` field (found by `codex-probe bisect` over 0.120.0..0.171.0).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.domain.surface.file import load_surfaces
from codex_probe.probes.runner.scenarios import SCENARIOS
from tests.cli import codex_probe as run_codex_probe


def codex_probe(*args: str) -> subprocess.CompletedProcess[str]:
    return run_codex_probe(*args, timeout=900)


pytestmark = pytest.mark.real

BEFORE, MOVED, AFTER = "0.161.0", "0.162.0", "0.162.1"


def test_bisect_names_the_release_where_the_base_instructions_left_the_instructions_field() -> None:
    done = codex_probe(
        "bisect",
        "base-developer-placement",
        "--observed",
        "base_at",
        "--from",
        BEFORE,
        "--to",
        AFTER,
        "--json",
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert (result["first_changed"], result["last_same"]) == (MOVED, BEFORE)
    values = {step["version"]: step["value"] for step in result["steps"]}
    assert values[BEFORE] == ["top-level instructions field"]
    assert values[MOVED] == values[AFTER] == ["input[0] role=developer part 0"]
    assert result["flips"] == [] and result["unresolved"] is None
    assert any("instructions=BASE-V1" in line for line in result["evidence"][BEFORE])
    assert f"  {MOVED}: base_at = " in done.stderr  # each step as it is probed


def test_bisect_of_a_surface_key_names_the_release_where_its_value_changed() -> None:
    key = "model_requests start turn-1 #0"
    done = codex_probe("bisect", "--surface-key", key, "--from", BEFORE, "--to", AFTER, "--json")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert (result["surface"], result["first_changed"], result["last_same"]) == (
        key,
        MOVED,
        BEFORE,
    )
    values = {step["version"]: step["value"] for step in result["steps"]}
    assert values[BEFORE]["instructions"] == "BASE-V1"
    assert values[MOVED]["instructions"] is None
    assert values[MOVED]["input"][0] == {"role": "developer", "parts": ["BASE-V1"]}


def test_bisect_of_an_unchanged_finding_says_there_is_no_change(tmp_path: Path) -> None:
    done = codex_probe(
        "bisect",
        "error-resume-unknown-thread",
        "--from",
        BEFORE,
        "--to",
        AFTER,
    )
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert f'no change between {BEFORE} and {AFTER}: both give "holds"' in done.stdout


def test_bisect_of_an_unknown_observed_key_is_a_usage_error_naming_what_it_observes() -> None:
    done = codex_probe(
        "bisect",
        "base-developer-placement",
        "--observed",
        "nope",
        "--from",
        BEFORE,
        "--to",
        MOVED,
    )
    assert done.returncode == 2
    assert "base-developer-placement observes no 'nope'; it observes: base_in_user_message" in (
        done.stderr
    )


@pytest.mark.starts_early  # probes three releases, then resumes: about 30 s
def test_history_draws_the_move_in_the_grid_and_a_rerun_resumes(tmp_path: Path) -> None:
    done = codex_probe("history", "--from", BEFORE, "--to", AFTER, "--out", str(tmp_path))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    history = json.loads((tmp_path / "history.json").read_text())
    assert list(history["releases"]) == [BEFORE, MOVED, AFTER]
    every_id = {a.id for a in ASSUMPTIONS} | {f"fake-fidelity-{s}" for s in SCENARIOS}
    for release, entry in history["releases"].items():
        assert set(entry["findings"]) == every_id, release
        assert entry["fake_profile"]["source"] == "learned"
        assert (tmp_path / "releases" / release / "verdict.json").is_file()
        # Changed on every release (informative): its bundle is written beside the verdict.
        verdict = json.loads((tmp_path / "releases" / release / "verdict.json").read_text())
        repro = verdict["versions"][release]["resume-refresh-cold"]["repro"]
        assert repro["path"] == f"repro/resume-refresh-cold-{release}"
        assert (tmp_path / "releases" / release / repro["path"] / "reproduce.py").is_file()
    moved = f"base-developer-placement: observed changed in {MOVED} (last same: {BEFORE})"
    assert moved in done.stdout
    for release, entry in history["releases"].items():
        assert entry["surface"]["path"] == f"releases/{release}/surface.json"
        assert (tmp_path / entry["surface"]["path"]).is_file() and entry["surface"]["missing"] == []
    surface_points = {
        (p["key"], p["first_changed"], p["last_same"])
        for p in history["change_points"]
        if p["kind"] == "surface"
    }
    assert ("model_requests start turn-1 #0", MOVED, BEFORE) in surface_points
    # The newest release's points compare its surface, which was on disk when the history
    # recorded it (it once was not: every key of the last release read as gone).
    newest = load_surfaces(tmp_path / history["releases"][AFTER]["surface"]["path"])[AFTER]
    held = {f"{aspect} {key}" for aspect, keys in newest.aspects.items() for key in keys}
    gone = [
        p["key"]
        for p in history["change_points"]
        if p["kind"] == "surface" and p["first_changed"] == AFTER and p["after"] is None
    ]
    assert not set(gone) & held, sorted(set(gone) & held)[:5]
    assert f"  {MOVED} (last same: {BEFORE}): " in done.stdout
    page = (tmp_path / "history.html").read_text()
    assert f"<b>base-developer-placement</b>: observed changed in <b>{MOVED}</b>" in page
    assert "<svg" in (tmp_path / "history.svg").read_text()

    again = codex_probe("history", "--from", BEFORE, "--to", AFTER, "--out", str(tmp_path))
    assert again.returncode == 0, again.stderr
    assert "0 to probe, 3 already recorded by this tool" in again.stdout
    assert moved in again.stdout

    # The published site of that history: the move on the finding's page, the bundles zipped.
    site = tmp_path / "site"
    built = codex_probe("site", "--history", str(tmp_path), "--out", str(site))
    assert built.returncode == 0, built.stderr
    finding = (site / "findings" / "base-developer-placement.html").read_text()
    assert f'First changed in <a href="../releases/{MOVED}.html">{MOVED}</a>' in finding
    release = json.loads((site / "data" / "releases" / f"{MOVED}.json").read_text())
    bundle = release["findings"]["resume-refresh-cold"]["bundle"]["file"]
    assert (site / "data" / bundle).is_file()


# npm publishes 0.142.1, but not its platform package: the binary cannot start.
NOT_INSTALLABLE = "0.142.1"


def test_history_records_a_release_whose_codex_cannot_run_as_not_installable(
    tmp_path: Path,
) -> None:
    args = ("history", "--from", NOT_INSTALLABLE, "--to", NOT_INSTALLABLE, "--out", str(tmp_path))
    done = codex_probe(*args)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    entry = json.loads((tmp_path / "history.json").read_text())["releases"][NOT_INSTALLABLE]
    assert entry["findings"] == {}
    # The registry's word (no linux-x64 build of it), so for good: never probed again.
    assert "no codex-cli 0.142.1 binary for this platform" in entry["unavailable"]
    assert entry["permanent"] is True
    assert f"{NOT_INSTALLABLE}: not installable, nothing to probe" in done.stdout
    again = codex_probe(*args)
    assert "0 to probe, 1 already recorded by this tool" in again.stdout


@pytest.mark.starts_early  # probes two releases once: about 30 s
def test_can_i_upgrade_probes_what_the_history_lacks_then_answers_from_it(tmp_path: Path) -> None:
    args = ("can-i-upgrade", "--from", BEFORE, "--to", MOVED, "--history", str(tmp_path))
    done = codex_probe(*args)
    # The move of the base instructions changes where they reach the model, not whether.
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"probing 2 release(s) the history lacks: {BEFORE}, {MOVED}" in done.stderr
    assert done.stdout.startswith(f"can I upgrade codex-cli {BEFORE} -> {MOVED}? yes\n")
    assert (
        f"  - base-developer-placement (required, spec 5.2), first in {MOVED} "
        f"(last same: {BEFORE}):\n"
        '      base_at: "top-level instructions field" -> "input[0] role=developer part 0"'
    ) in done.stdout
    strict = codex_probe(*args, "--strict", "--json")
    assert strict.returncode == 1, strict.stdout[-3000:] + strict.stderr[-3000:]
    answer = json.loads(strict.stdout)
    assert (answer["answer"], answer["probed_now"]) == ("no", [])
    blocking = [c for c in answer["changes"] if c["blocking"]]
    assert {(c["key"], c["first_changed"]) for c in blocking if c["kind"] == "verdict"} == {
        ("steer-mid-answer-keeps-reply", MOVED)
    }
