"""`codex-probe probe` against the real default codex-cli: every assumption gets a verdict."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codex_probe.fake_appserver.profile import PROFILES_DIR, checked_in_path, load_profile
from codex_probe.harness.codex.install import Installation
from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.domain.surface.file import SURFACE_FILE, load_surfaces
from codex_probe.probes.domain.surface.release import ASPECTS
from codex_probe.probes.runner.scenarios import SCENARIOS
from tests.child_processes import interruptible
from tests.once import made_once

pytestmark = pytest.mark.real


def probe(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codex_probe.cli", "probe", "--out", str(out), *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def default_run(tmp_path_factory: pytest.TempPathFactory, default_codex: Installation) -> Path:
    def run(out: Path) -> None:
        done = probe(out, "--codex", default_codex.version)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        (out / "terminal.txt").write_text(done.stdout)

    return made_once(tmp_path_factory, "probe-run", run)


def test_the_terminal_reads_as_findings_in_spec_order_not_as_a_failed_test_run(
    default_run: Path,
) -> None:
    terminal = (default_run / "terminal.txt").read_text()
    assert terminal.startswith("codex-cli "), terminal[:300]  # no test runner's header
    assert "FAILED" not in terminal and "failed" not in terminal
    assert "rootdir" not in terminal and "plugins:" not in terminal
    rows = [line.split()[0] for line in terminal.splitlines() if line.split()[:1]]
    in_table = [row for row in rows if row in {a.id for a in ASSUMPTIONS}]
    assert in_table[-len(ASSUMPTIONS) :] == [a.id for a in ASSUMPTIONS]
    counts = [line for line in terminal.splitlines() if line.startswith("codex ")]
    assert re.search(r"assumptions: \d+ holds, \d+ changed, .*; fake versus real: ", counts[-1])
    closing = terminal.splitlines()[-2:]
    # The command as the shell finds it (cli/commands/invocation.py), then the report.
    assert closing[0].startswith("next: ") and " report --codex " in closing[0]
    assert " gate --codex " in closing[1]


def test_every_assumption_and_every_fidelity_check_gets_a_verdict_and_none_is_broken(
    default_run: Path,
    default_codex: Installation,
) -> None:
    verdict = json.loads((default_run / "verdict.json").read_text())
    findings = verdict["versions"][default_codex.version]
    expected_ids = {a.id for a in ASSUMPTIONS} | {f"fake-fidelity-{s}" for s in SCENARIOS}
    assert set(findings) == expected_ids
    assert {f["verdict"] for f in findings.values()} <= {"holds", "changed"}
    for finding_id, finding in findings.items():
        assert finding["reproduce"] == (
            f"codex-probe probe --codex {default_codex.version} --only {finding_id}"
        )
        assert finding["evidence"] or finding["verdict"] == "holds"


def test_the_fake_is_faithful_to_the_real_default_version_in_every_scenario(
    default_run: Path,
    default_codex: Installation,
) -> None:
    findings = json.loads((default_run / "verdict.json").read_text())["versions"][
        default_codex.version
    ]
    diverging = {
        i: f["evidence"]
        for i, f in findings.items()
        if i.startswith("fake-fidelity-") and f["verdict"] != "holds"
    }
    assert diverging == {}


def test_allure_results_hold_one_result_per_finding_with_labels(
    default_run: Path,
    default_codex: Installation,
) -> None:
    results = [
        json.loads(p.read_text()) for p in (default_run / "allure-results").glob("*-result.json")
    ]
    assert len(results) == len(ASSUMPTIONS) + len(SCENARIOS)
    labels = {label["name"] for r in results for label in r["labels"]}
    assert {"epic", "feature", "severity"} <= labels
    assert all(any(p["name"] == "codex version" for p in r["parameters"]) for r in results)


def test_a_reproduce_command_reruns_just_that_probe(
    tmp_path: Path,
    default_codex: Installation,
) -> None:
    done = probe(
        tmp_path,
        "--codex",
        default_codex.version,
        "--only",
        "error-steer-wrong-turn",
        "--no-fidelity",
    )
    assert done.returncode == 0, done.stdout[-2000:]
    findings = json.loads((tmp_path / "verdict.json").read_text())["versions"]
    assert list(findings[default_codex.version]) == ["error-steer-wrong-turn"]
    assert not (tmp_path / SURFACE_FILE).exists()  # some findings are not the whole surface


def test_the_surface_of_the_release_is_written_beside_the_verdict(
    default_run: Path,
    default_codex: Installation,
) -> None:
    surfaces = load_surfaces(default_run / SURFACE_FILE)
    surface = surfaces[default_codex.version]
    assert list(surfaces) == [default_codex.version]
    assert surface.complete and set(surface.scenarios) == set(SCENARIOS)
    assert all(surface.aspects[aspect] for aspect in ASPECTS), surface.aspects.keys()
    terminal = (default_run / "terminal.txt").read_text()
    assert f"surface of codex-cli {default_codex.version}: {surface.digest()}" in terminal


def test_an_unknown_probe_id_is_a_usage_error_listing_the_known_ones(tmp_path: Path) -> None:
    done = probe(tmp_path, "--only", "no-such-assumption")
    assert done.returncode == 2
    assert "unknown id(s) no-such-assumption; known:" in done.stderr


def test_scenarios_run_one_at_a_time_still_give_every_finding_once(
    tmp_path: Path,
    default_codex: Installation,
) -> None:
    ids = ["start-applies-instructions", "error-steer-wrong-turn"]
    done = probe(
        tmp_path,
        "--codex",
        default_codex.version,
        "--jobs",
        "1",
        "--no-fidelity",
        *[arg for i in ids for arg in ("--only", i)],
    )
    assert done.returncode == 0, done.stdout[-2000:]
    findings = json.loads((tmp_path / "verdict.json").read_text())["versions"]
    assert sorted(findings[default_codex.version]) == sorted(ids)


def test_jobs_below_one_is_a_usage_error_in_one_line(tmp_path: Path) -> None:
    done = probe(tmp_path, "--jobs", "0")
    assert done.returncode == 2
    assert "argument --jobs: 0 is less than 1" in done.stderr


def test_fidelity_findings_name_the_checked_in_profile_the_fake_ran_on(
    default_run: Path,
    default_codex: Installation,
) -> None:
    verdict = json.loads((default_run / "verdict.json").read_text())
    profile = verdict["fake_profiles"][default_codex.version]
    assert profile["source"] == "checked-in"
    assert profile["path"] == str(PROFILES_DIR.resolve() / f"{default_codex.version}.json")
    assert profile["gaps"] == [] and profile["problem"] is None
    finding = verdict["versions"][default_codex.version]["fake-fidelity-start"]
    assert finding["observed"]["profile"] == {"source": "checked-in", "path": profile["path"]}


# A published release nobody fitted the fake to: the nightly job's normal case.
UNFITTED_RELEASE = "0.150.0"


def test_a_release_without_a_checked_in_profile_gets_every_finding_on_a_learned_fake(
    tmp_path: Path,
) -> None:
    assert checked_in_path(UNFITTED_RELEASE) is None
    done = probe(tmp_path, "--codex", UNFITTED_RELEASE)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    verdict = json.loads((tmp_path / "verdict.json").read_text())
    findings = verdict["versions"][UNFITTED_RELEASE]
    expected_ids = {a.id for a in ASSUMPTIONS} | {f"fake-fidelity-{s}" for s in SCENARIOS}
    assert set(findings) == expected_ids
    assert {f["verdict"] for f in findings.values()} <= {"holds", "changed"}
    learned = tmp_path / "learned" / f"{UNFITTED_RELEASE}.json"
    assert verdict["fake_profiles"][UNFITTED_RELEASE]["source"] == "learned"
    assert verdict["fake_profiles"][UNFITTED_RELEASE]["path"] == str(learned.resolve())
    assert load_profile(path=learned).version == UNFITTED_RELEASE
    assert f"fake profile for {UNFITTED_RELEASE}: learned {learned.resolve()}" in done.stdout


def test_a_refused_step_breaks_every_finding_of_its_scenario_and_the_run_exits_3(
    tmp_path: Path,
    default_codex: Installation,
) -> None:
    script = tmp_path / "refuse.jsonl"
    script.write_text(
        json.dumps(
            {"method": "thread/resume", "action": "error", "code": -32603, "message": "no, says F"}
        )
        + "\n"
    )
    done = probe(
        tmp_path / "out",
        "--codex",
        default_codex.version,
        "--backend",
        "fake",
        "--fake-script",
        str(script),
        "--only",
        "resume-refresh-cold",
    )
    assert done.returncode == 3, done.stdout[-2000:] + done.stderr[-2000:]
    verdict = json.loads((tmp_path / "out" / "verdict.json").read_text())
    finding = verdict["versions"][default_codex.version]["resume-refresh-cold"]
    assert finding["verdict"] == "broken"
    assert finding["evidence"][0] == (
        "scenario resume-cold broke: thread/resume was refused: error -32603: no, says F"
    )
    assert finding["reproduce"].endswith(f"--backend fake --fake-script {script}")
    assert verdict["subject"]["backend"] == "fake" and verdict["complete"] is True
    assert "1 finding(s) are broken (no verdict): " in done.stderr


@pytest.mark.parametrize(
    ("sent", "exit_code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)]
)
def test_ctrl_c_sigterm_and_sighup_end_the_run_with_a_verdict_that_says_what_did_not_run(
    tmp_path: Path,
    default_codex: Installation,
    sent: signal.Signals,
    exit_code: int,
) -> None:
    hang = tmp_path / "hang.jsonl"
    hang.write_text(json.dumps({"method": "turn/start", "action": "never_complete"}) + "\n")
    out = tmp_path / "out"
    command = [
        sys.executable,
        "-m",
        "codex_probe.cli",
        "probe",
        "--codex",
        default_codex.version,
        "--out",
        str(out),
        "--backend",
        "fake",
        "--fake-script",
        str(hang),
        "--jobs",
        "1",
    ]
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    process = subprocess.Popen(
        interruptible(command),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(scratch)},
    )
    try:
        deadline = time.monotonic() + 60
        while not any(c for c in children(process.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)  # a scenario's fake app-server is up: the run is under way
        process.send_signal(sent)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == exit_code, err[-2000:]
    assert "Event loop is closed" not in err and "Reproduce with:" not in err
    assert "Traceback" not in err, err[-2000:]
    verdict = json.loads((out / "verdict.json").read_text())
    assert verdict["complete"] is False
    assert f"{default_codex.version}:start-applies-instructions" in verdict["missing"]
    assert f"interrupted ({sent.name});" in err and "did not run" in err
    assert [path.name for path in scratch.glob("codex-probe-*")] == []  # every home removed


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def test_an_output_folder_that_is_a_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("")
    done = probe(taken, "--no-fidelity")
    assert done.returncode == 2
    assert done.stderr == f"codex-probe probe: --out {taken} is a file, not a folder\n"
