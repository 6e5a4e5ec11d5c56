"""`codex-probe probe` writes a reproduction bundle of each changed or broken finding of the
real codex-cli under OUT/repro/, and links it from verdict.json, summary.md and Allure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.probes.domain.verdict_file import load_verdict
from codex_probe.reporting.summary import render_summary

CHANGED, HOLDS = "resume-refresh-cold", "start-applies-instructions"


def probe(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codex_probe.cli", "probe", "--out", str(out), "--no-fidelity"]
        + [arg for finding in (CHANGED, HOLDS) for arg in ("--only", finding)]
        + list(args),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def allure_result(out: Path, finding: str) -> dict[str, Any]:
    for path in (out / "allure-results").glob("*-result.json"):
        result: dict[str, Any] = json.loads(path.read_text())
        if any(label["value"] == finding for label in result["labels"]):
            return result
    raise LookupError(finding)


@pytest.mark.real
def test_a_changed_finding_gets_a_bundle_linked_from_verdict_summary_and_allure(
    tmp_path: Path, default_codex: Installation
) -> None:
    stale = tmp_path / "repro" / "from-an-earlier-run"
    stale.mkdir(parents=True)
    done = probe(tmp_path, "--codex", default_codex.version)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    bundle = f"repro/{CHANGED}-{default_codex.version}"
    findings = json.loads((tmp_path / "verdict.json").read_text())["versions"]
    entry = findings[default_codex.version][CHANGED]
    assert entry["verdict"] == "changed"
    assert entry["repro"] == {
        "path": bundle,
        "run": f"python3 {bundle}/reproduce.py --codex {default_codex.binary}",
    }
    assert "repro" not in findings[default_codex.version][HOLDS]
    assert sorted(p.name for p in (tmp_path / "repro").iterdir()) == [bundle.split("/")[1]]
    assert (tmp_path / bundle / "README.md").is_file()
    summary = render_summary(load_verdict(tmp_path / "verdict.json"))
    assert f"[{bundle}]({bundle}/README.md)" in summary
    result = allure_result(tmp_path, CHANGED)
    assert {"name": "reproduction bundle", "url": f"../{bundle}/README.md"} in [
        {key: link[key] for key in ("name", "url")} for link in result["links"]
    ]
    assert "reproduction bundle README.md" in [a["name"] for a in result["attachments"]]


@pytest.mark.real
def test_findings_about_the_fake_get_no_bundle(tmp_path: Path, default_codex: Installation) -> None:
    done = probe(tmp_path, "--codex", default_codex.version, "--backend", "fake")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    entry = json.loads((tmp_path / "verdict.json").read_text())["versions"][default_codex.version][
        CHANGED
    ]
    assert entry["verdict"] == "changed" and "repro" not in entry
    assert not (tmp_path / "repro").exists()


def test_a_repro_folder_that_is_a_file_is_a_usage_error_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "repro").write_text("")
    done = probe(tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"codex-probe probe: --out {tmp_path}: {tmp_path / 'repro'} is a file, not a folder\n"
    )
