"""`codex-probe watch`: each watched upstream issue's state per release, decided or broken
with the reason, and a bundle of each present bug that runs as it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness.codex.install import install
from codex_probe.harness.files import write_json
from codex_probe.probes.domain.watch import WATCH_FINDINGS, WATCHED
from tests.cli import codex_probe
from tests.probes.repro.bundles import run_bundle

pytestmark = pytest.mark.real  # the releases come from the cache (npm on a first run)


def verdict_file(folder: Path, version: str, verdicts: dict[str, str]) -> Path:
    """A probe run's verdict.json holding every finding the watch list reads."""
    findings: dict[str, Any] = {}
    for watched in WATCHED:
        for sign in watched.signs:
            observed = {**findings.get(sign.finding, {}).get("observed", {}), **sign.values}
            findings[sign.finding] = {
                "verdict": verdicts.get(sign.finding, "holds"),
                "required": False,
                "observed": observed,
                "expected": {},
                "summary": "it broke" if verdicts.get(sign.finding) == "broken" else "",
            }
    path = folder / "verdict.json"
    write_json(path, {"versions": {version: findings}})
    return path


def test_a_release_read_from_a_verdict_file_is_not_probed_and_every_issue_gets_a_state(
    tmp_path: Path,
) -> None:
    verdict = verdict_file(tmp_path, "0.150.0", {})
    out = tmp_path / "watch"
    done = codex_probe(
        "watch", "--codex", "0.150.0", "--verdict", str(verdict), "--out", str(out), "--json"
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["sources"] == {"0.150.0": f"read from {verdict}"}
    states = {issue["issue"]: issue["states"]["0.150.0"]["state"] for issue in document["issues"]}
    assert states == {watched.issue: "present" for watched in WATCHED}
    assert json.loads((out / "watch.json").read_text()) == document


def test_an_issue_whose_finding_broke_is_broken_with_the_reason_and_the_run_exits_3(
    tmp_path: Path,
) -> None:
    verdict = verdict_file(tmp_path, "0.150.0", {"compaction-turn-completes": "broken"})
    done = codex_probe(
        "watch", "--codex", "0.150.0", "--verdict", str(verdict), "--out", str(tmp_path / "w")
    )
    assert done.returncode == 3, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("openai/codex#28495"))
    assert row.split()[1:] == ["broken"]
    assert "  0.150.0 broken: compaction-turn-completes is broken: it broke" in done.stdout


def test_an_out_that_is_a_file_is_a_usage_error_in_one_line(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("")
    done = codex_probe("watch", "--codex", "0.150.0", "--out", str(taken))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"codex-probe watch: --out {taken} is a file, not a folder\n"


def test_a_release_probed_gets_a_decided_state_for_every_issue_and_a_bundle_per_present_bug(
    tmp_path: Path,
) -> None:
    out = tmp_path / "watch"
    done = codex_probe("watch", "--codex", "0.150.0", "--out", str(out), "--json", timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    document = json.loads(done.stdout)
    assert document["sources"] == {"0.150.0": "probed"}
    issues = {issue["issue"]: issue["states"]["0.150.0"] for issue in document["issues"]}
    assert {state["state"] for state in issues.values()} <= {"present", "absent"}
    present = [state for state in issues.values() if state["state"] == "present"]
    assert present and all(state["bundles"] for state in present)
    verdicts = {f: v for state in issues.values() for f, v in state["findings"].items()}
    assert set(verdicts) == set(WATCH_FINDINGS)
    # A bundle is handed upstream as it is: it runs with Python alone and reproduces.
    bundle = out / issues["openai/codex#41491"]["bundles"][0]
    ran = run_bundle(bundle, install("0.150.0").binary)
    assert ran.exit_code == 0, ran.stderr
    assert ran.result["outcome"]["observed"]["base_in_model_switch_block"] is True
    assert "openai/codex#41491" in (bundle / "README.md").read_text()
