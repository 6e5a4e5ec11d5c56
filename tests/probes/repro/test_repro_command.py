"""`codex-probe repro FINDING --codex VERSION --out DIR`: a bundle, or one line saying why not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.probes.releases.repro.bundle import BUNDLE_FILES
from tests.cli import codex_probe


def test_an_unknown_finding_is_a_usage_error_in_one_line_and_writes_nothing(
    tmp_path: Path,
) -> None:
    done = codex_probe("repro", "no-such-finding", "--out", str(tmp_path / "bundle"))
    assert done.returncode == 2
    assert done.stderr.startswith("codex-probe repro: unknown finding no-such-finding; findings: ")
    assert done.stderr.count("\n") == 1 and done.stdout == ""
    assert not (tmp_path / "bundle").exists()


def test_an_out_that_is_a_file_is_a_usage_error_in_one_line(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("")
    done = codex_probe("repro", "start-applies-instructions", "--out", str(taken))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"codex-probe repro: --out {taken} is a file, not a folder\n"


def test_an_unpublished_version_is_a_usage_error_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    done = codex_probe("repro", "start-applies-instructions", "--codex", "9.9.9", "--out", str(out))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("codex-probe repro: codex-cli 9.9.9 is not published on npm")
    assert done.stderr.count("\n") == 1
    assert not out.exists()


def test_a_fake_fidelity_finding_has_no_bundle_and_exits_1_in_one_line(tmp_path: Path) -> None:
    done = codex_probe("repro", "fake-fidelity-start", "--out", str(tmp_path / "bundle"))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "codex-probe repro: no bundle for fake-fidelity-start: a fake-fidelity finding "
        "compares codex-probe's fake with codex: there is no behaviour of codex's to show "
        "upstream\n"
    )


@pytest.mark.real
def test_repro_writes_the_bundle_of_a_finding_on_the_real_release(
    tmp_path: Path, default_codex: Installation
) -> None:
    out = tmp_path / "bundle"
    done = codex_probe(
        "repro", "start-applies-instructions", "--codex", DEFAULT_CODEX_VERSION, "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"start-applies-instructions on codex-cli {DEFAULT_CODEX_VERSION}: holds",
        f"bundle: {out}",
        f"run it: python3 {out / 'reproduce.py'} --codex {default_codex.binary}",
    ]
    assert sorted(path.name for path in out.iterdir()) == sorted(BUNDLE_FILES)
    finding = json.loads((out / "finding.json").read_text())
    assert (finding["backend"], finding["version"]) == ("real", DEFAULT_CODEX_VERSION)
