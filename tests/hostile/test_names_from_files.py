"""Names read from a file (a release key of history.json, a finding id) become paths only
through `harness.files.inside`: a hostile file cannot make a command write outside the
folder it was given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codex_probe.cli.main import main

USAGE_ERROR = 2


def every_file(folder: Path) -> set[Path]:
    return {path for path in folder.rglob("*") if path.is_file()}


def run(words: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = main(words)
    except SystemExit as exited:
        code = int(exited.code or 0)
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    "release",
    [
        {"findings": {}},
        {"findings": {"start-applies-instructions": {"verdict": "holds", "required": True}}},
    ],
    ids=["no-findings", "one-finding"],
)
def test_site_from_a_history_with_a_release_key_leading_out_writes_nothing_outside_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], release: dict[str, object]
) -> None:
    history = tmp_path / "h"
    history.mkdir()
    document = {"tool": "codex-probe", "releases": {"../../../../pwned": release}}
    (history / "history.json").write_text(json.dumps(document))
    out = tmp_path / "a" / "b" / "site"
    before = every_file(tmp_path)
    code, err = run(["site", "--history", str(history), "--out", str(out)], capsys)
    assert code == USAGE_ERROR, err
    assert len(err.splitlines()) == 1, err
    assert "pwned" in err
    written = every_file(tmp_path) - before
    assert all(out in path.parents for path in written), written
    assert not any("pwned" in path.name for path in every_file(tmp_path))


def test_site_from_a_history_with_a_finding_id_leading_out_writes_nothing_outside_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = tmp_path / "h"
    history.mkdir()
    finding = {"verdict": "holds", "required": True, "observed": {}, "summary": ""}
    document = {"releases": {"0.162.0": {"findings": {"../../../../pwned": finding}}}}
    (history / "history.json").write_text(json.dumps(document))
    out = tmp_path / "a" / "b" / "site"
    code, err = run(["site", "--history", str(history), "--out", str(out)], capsys)
    assert code == USAGE_ERROR, err
    assert len(err.splitlines()) == 1, err
    assert not any("pwned" in path.name for path in every_file(tmp_path))
