"""reproduce.py seals codex with the bundle's own seal.py, and says when it cannot."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from codex_probe.harness.codex import seal
from codex_probe.probes.releases.repro.script.sealing import SEAL_FILE, Sealer, sealing_line

ARGV = ["codex", "app-server", "--listen", "stdio://"]


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    folder = tmp_path / "bundle"
    folder.mkdir()
    shutil.copyfile(seal.__file__, folder / SEAL_FILE)
    return folder


def test_with_its_seal_py_codex_is_started_through_that_file_where_the_host_can_seal(
    bundle: Path, tmp_path: Path
) -> None:
    support = seal.namespace_support()
    sealer = Sealer(bundle)
    command = sealer.wrap(ARGV, tmp_path)
    assert sealer.sealing is not None
    assert sealer.sealing["sealed"] is support.available, sealer.sealing
    if support.available:
        assert command[:4] == [sys.executable, "-I", "-S", str(bundle / SEAL_FILE)]
        assert command[-len(ARGV) :] == ARGV
        assert sealing_line(sealer.sealing).startswith("sealed: ")
    else:
        assert command == ARGV
        assert sealing_line(sealer.sealing).startswith("NOT SEALED (unsealed: ")


def test_without_seal_py_codex_runs_as_given_and_the_report_says_it_is_not_sealed(
    tmp_path: Path,
) -> None:
    sealer = Sealer(tmp_path)
    assert sealer.wrap(ARGV, tmp_path) == ARGV
    assert sealing_line(sealer.sealing) == (
        f"NOT SEALED (unsealed: no {SEAL_FILE} beside reproduce.py)"
    )


@pytest.mark.parametrize(
    ("damage", "named"),
    [("def broken(:\n", "SyntaxError"), ("raise SystemExit(3)\n", "SystemExit: 3")],
)
def test_a_damaged_seal_py_leaves_codex_unsealed_and_names_what_was_wrong(
    bundle: Path, tmp_path: Path, damage: str, named: str
) -> None:
    (bundle / SEAL_FILE).write_text(damage, encoding="utf-8")
    sealer = Sealer(bundle)
    assert sealer.wrap(ARGV, tmp_path) == ARGV
    line = sealing_line(sealer.sealing)
    assert line.startswith(f"NOT SEALED (unsealed: {bundle / SEAL_FILE} cannot be loaded (")
    assert named in line


def test_an_unsealed_launch_lists_what_codex_could_see() -> None:
    sealing = {"sealed": False, "how": "unsealed: no mount namespace", "visible": ["/etc/codex"]}
    assert sealing_line(sealing) == (
        "NOT SEALED (unsealed: no mount namespace); codex could see: /etc/codex"
    )
