"""probe, report and gate given the same versions meet in one folder: reports/VERSION."""

from __future__ import annotations

import json
from pathlib import Path

from codex_probe.harness.codex.install import Installation, install
from codex_probe.harness.codex.versions import SPEC_CODEX_VERSION
from tests.cli import codex_probe

FINDING = "start-applies-instructions"


def test_gate_and_report_read_what_probe_wrote_for_the_same_version(
    tmp_path: Path, default_codex: Installation
) -> None:
    version = default_codex.version
    probed = codex_probe(
        "probe", "--backend", "fake", "--codex", version, "--only", FINDING, cwd=tmp_path
    )
    assert probed.returncode == 0, probed.stderr[-2000:]
    verdict = tmp_path / "reports" / version / "verdict.json"
    assert FINDING in json.loads(verdict.read_text())["versions"][version]

    # The gate judges the one finding the probe wrote (the others it reports as missing).
    gated = codex_probe("gate", "--codex", version, "--no-run", cwd=tmp_path)
    assert f"codex {version}: assumptions: 1 holds, 0 changed, 0 broken" in gated.stdout, (
        gated.stdout + gated.stderr
    )

    reported = codex_probe("report", "--codex", version, cwd=tmp_path, timeout=600)
    assert reported.returncode == 0, reported.stderr[-2000:]
    assert (tmp_path / "reports" / version / "summary.md").is_file()
    assert (tmp_path / "reports" / version / "html" / "index.html").is_file()


def test_a_run_over_two_versions_writes_one_folder_named_by_both(
    tmp_path: Path, default_codex: Installation
) -> None:
    versions = [install(SPEC_CODEX_VERSION).version, default_codex.version]
    probed = codex_probe(
        "probe", "--backend", "fake", "--codex", versions[0], "--codex", versions[1],
        "--only", FINDING, cwd=tmp_path,
    )  # fmt: skip
    assert probed.returncode == 0, probed.stderr[-2000:]
    folder = tmp_path / "reports" / "+".join(versions)
    assert set(json.loads((folder / "verdict.json").read_text())["versions"]) == set(versions)
    gated = codex_probe(
        "gate", "--codex", versions[0], "--codex", versions[1], "--no-run", cwd=tmp_path
    )
    for version in versions:
        assert f"codex {version}: assumptions: 1 holds" in gated.stdout, gated.stdout
