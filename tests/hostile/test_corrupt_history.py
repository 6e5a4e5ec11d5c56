"""can-i-upgrade never answers yes from a record that cannot support it: a history whose
target release lacks a required finding, or whose findings are not of history.json's
shape, answers unknown (exit 3) and says why in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codex_probe.cli import main as cli
from codex_probe.cli.commands import can_i_upgrade
from codex_probe.reporting.upgrade import UNKNOWN

FROM, TO = "0.162.0", "0.162.1"
HOLDS = {"verdict": "holds", "required": True, "observed": {}}


def ask(
    history: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> tuple[int, str, str]:
    folder = tmp_path / "h"
    folder.mkdir()
    (folder / "history.json").write_text(json.dumps(history))
    monkeypatch.setattr(can_i_upgrade, "published_range", lambda a, b: [FROM, TO])
    code = cli.main(
        ["can-i-upgrade", "--from", FROM, "--to", TO, "--no-run", "--history", str(folder)]
    )
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    "target",
    [{"findings": {}}, {"findings": []}, {}, {"findings": 7}, {"findings": "flaky"}],
    ids=["empty", "list", "missing", "number", "text"],
)
def test_a_target_release_without_its_required_findings_answers_unknown(
    target: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    history = {"releases": {FROM: {"findings": {"start-applies-instructions": HOLDS}}, TO: target}}
    code, out, err = ask(history, tmp_path, monkeypatch, capsys)
    assert code == UNKNOWN, (out, err)
    assert "yes" not in out.splitlines()[0] if out else True
    said = out + err
    assert TO in said
    assert "Traceback" not in said
