"""The plugin as a user meets it: baseline verdicts, untouched unrelated tests, usage errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codex_probe.fake_appserver.profile import PROFILES_DIR
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from tests.conformance.runner import run_pytest

CHECKS_FILE = """
from codex_probe.conformance.marks import check

@check("CONF-METHOD-001")
def test_known_break(codex_target):
    raise AssertionError("KNOWN-BREAK on " + codex_target.label)

@check("CONF-UNSUBSCRIBE-002")
def test_fixed_since(codex_target):
    pass

@check("CONF-HANDSHAKE-003")
def test_breaks_differently(codex_target):
    raise AssertionError("ANOTHER-BREAK")

@check("CONF-HANDSHAKE-002")
def test_new_break(codex_target):
    raise AssertionError("NEW-BREAK")
"""


def entry(check: str, failure: str) -> str:
    return (
        f'[[expected]]\ncodex = "{DEFAULT_CODEX_VERSION}"\nid = "{check}"\nbackend = "fake"\n'
        f'reason = "{check} is expected to fail here"\nfailure = "{failure}"\n'
    )


@pytest.mark.real  # the fake backend needs the version's schema from npm
def test_the_baseline_excuses_known_failures_and_fails_stale_and_new_ones(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_checks.py").write_text(CHECKS_FILE, encoding="utf-8")
    baseline = tmp_path / "baseline.toml"
    entries = [
        entry("CONF-METHOD-001", "KNOWN-BREAK"),
        entry("CONF-UNSUBSCRIBE-002", "whatever"),
        entry("CONF-HANDSHAKE-003", "KNOWN-BREAK"),
    ]
    baseline.write_text("".join(entries), encoding="utf-8")
    run = run_pytest(
        tmp_path,
        "--codex-backend=fake",
        f"--codex-version={DEFAULT_CODEX_VERSION}",
        f"--codex-baseline={baseline}",
        "-rxX",
        cwd=project,
    )
    assert run.returncode == 1, run.output
    assert run.outcome("CONF-METHOD-001") == "expected failure", run.output
    assert f"XFAIL test_checks.py::test_known_break[fake-{DEFAULT_CODEX_VERSION}]" in run.output
    assert run.outcome("CONF-UNSUBSCRIBE-002") == "failed", run.output
    assert "stale baseline entry: CONF-UNSUBSCRIBE-002" in run.message("CONF-UNSUBSCRIBE-002")
    assert run.outcome("CONF-HANDSHAKE-003") == "failed", run.output
    assert "fails differently" in run.message("CONF-HANDSHAKE-003")
    assert run.outcome("CONF-HANDSHAKE-002") == "failed", run.output
    assert "3 failed, 1 xfailed" in run.output
    assert "codex-probe conformance: backends fake" in run.output
    assert f"codex-cli {DEFAULT_CODEX_VERSION}: schema " in run.output


def test_tests_that_do_not_use_the_fixtures_are_left_alone(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_plain.py").write_text("def test_plain():\n    pass\n", encoding="utf-8")
    run = run_pytest(tmp_path, "--codex-backend=real", cwd=project)
    assert run.returncode == 0, run.output
    assert "1 passed" in run.output
    assert "codex-probe conformance" not in run.output
    assert run.results == {}


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (
            ["--codex-backend=real", "--codex-fake-script=x.jsonl"],
            "--codex-fake-script needs the fake backend",
        ),
        (["--codex-check=CONF-NOPE-001"], "unknown conformance check id(s): CONF-NOPE-001"),
        (["--codex-baseline=missing.toml"], "missing.toml: no such baseline file"),
        (["--codex-lifecycle-examples=0"], "--codex-lifecycle-examples must be at least 1"),
        (["--codex-fake-profile=missing.json"], "--codex-fake-profile: missing.json: cannot read"),
        (
            [f"--codex-fake-profile={PROFILES_DIR / '0.171.0.json'}", "--codex-version=0.120.0"],
            "imitates codex-cli 0.171.0; --codex-version asks for 0.120.0",
        ),
    ],
)
def test_a_wrong_option_is_a_usage_error_naming_it(
    tmp_path: Path, args: list[str], problem: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_plain.py").write_text("def test_plain():\n    pass\n", encoding="utf-8")
    run = run_pytest(tmp_path, *args, cwd=project)
    assert run.returncode == 4, run.output
    assert problem in run.output


PROFILE_CHECK = """
from codex_probe.conformance.marks import check

@check("CONF-METHOD-001")
def test_the_fake_runs_on_the_given_profile(codex_backend):
    assert codex_backend.kind == "fake", codex_backend
    assert codex_backend.profile is not None and codex_backend.profile.parent.name == "learned"
"""


@pytest.mark.real  # the fake backend needs the version's schema from npm
def test_fake_profile_runs_the_fake_on_that_file_for_its_version(tmp_path: Path) -> None:
    project, learned = tmp_path / "project", tmp_path / "learned"
    project.mkdir()
    learned.mkdir()
    (project / "test_profile.py").write_text(PROFILE_CHECK, encoding="utf-8")
    for name in ("0.120.0.json", "wire-0.120.0.json"):
        shutil.copy(PROFILES_DIR / name, learned / name)
    run = run_pytest(tmp_path, f"--codex-fake-profile={learned / '0.120.0.json'}", cwd=project)
    assert run.returncode == 0, run.output
    assert run.results["CONF-METHOD-001"]["target"] == "fake-0.120.0", run.output
    assert f"fake profile: {learned / '0.120.0.json'}" in run.output


WHERE_CHECKS_RAN = """
import os
from codex_probe.conformance.marks import check

def ran(codex_target):
    with open(os.environ["WHERE_CHECKS_RAN"], "a") as sink:
        sink.write(f"{codex_target.label} {os.getpid()}\\n")

@check("CONF-METHOD-001")
def test_one(codex_target):
    ran(codex_target)

@check("CONF-HANDSHAKE-002")
def test_two(codex_target):
    ran(codex_target)
    raise AssertionError("NEW-BREAK")

@check("CONF-HANDSHAKE-003")
def test_three(codex_target):
    ran(codex_target)
"""


@pytest.mark.real  # the fake backend needs the versions' schemas from npm
def test_on_xdist_workers_a_target_stays_on_one_worker_and_every_outcome_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_checks.py").write_text(WHERE_CHECKS_RAN, encoding="utf-8")
    where = tmp_path / "where.txt"
    monkeypatch.setenv("WHERE_CHECKS_RAN", str(where))
    run = run_pytest(
        tmp_path, "--codex-backend=fake", "-n", "2", "--dist", "loadgroup", cwd=project
    )
    assert run.returncode == 1, run.output
    workers: dict[str, set[str]] = {}
    for line in where.read_text().splitlines():
        label, pid = line.split()
        workers.setdefault(label, set()).add(pid)
    assert len(workers) == 2 and all(len(pids) == 1 for pids in workers.values()), workers
    # The main process shows and writes what the workers ran: both versions, all outcomes.
    assert "checks: 2 failed, 4 passed" in run.output
    assert "codex-probe conformance: backends fake" in run.output
    assert set(run.results) == {"CONF-METHOD-001", "CONF-HANDSHAKE-002", "CONF-HANDSHAKE-003"}
    assert "NEW-BREAK" in run.message("CONF-HANDSHAKE-002")


@pytest.mark.real  # the fake backend needs the versions' schemas from npm
def test_on_xdist_workers_without_loadgroup_every_check_errors_naming_it(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_checks.py").write_text(CHECKS_FILE, encoding="utf-8")
    run = run_pytest(tmp_path, "--codex-backend=fake", "-n", "2", cwd=project)
    assert run.returncode == 1, run.output
    assert "8 errors" in run.output, run.output
    assert {result["outcome"] for result in run.results.values()} == {"error"}
    assert "need --dist loadgroup" in run.message("CONF-METHOD-001")
