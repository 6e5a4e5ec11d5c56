"""The observations page of a history run (tools/observations.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codex_probe.probes.releases.change_points import ChangePoint
from tools.observations import main, render, steps_of


def _point(key: str, last: str, first: str, severity: str | None = "WARN") -> ChangePoint:
    return ChangePoint(
        "surface",
        key,
        first,
        last,
        {"refused": {"code": -32600, "message": "a"}},
        {"answer": {"$": "object"}},
        rule=None if severity is None else "refusal-became-answer",
        severity=severity,
    )


def test_the_changes_of_one_aspect_are_grouped_by_the_releases_they_lie_between() -> None:
    points = [
        _point("exploration thread/read idle minimal", "0.150.0", "0.151.0"),
        _point("answers start thread/start", "0.150.0", "0.151.0"),
        _point("exploration thread/read idle full", "0.150.0", "0.151.0", "ERR"),
        _point("exploration config/read none minimal", "0.9.0", "0.10.0"),
        ChangePoint("verdict", "exploration x", "0.151.0", "0.150.0", "holds", "changed"),
    ]
    steps = steps_of(points, "exploration")
    assert [(s.last_same, s.first_changed, len(s.points)) for s in steps] == [
        ("0.9.0", "0.10.0", 1),
        ("0.150.0", "0.151.0", 2),
    ]
    assert steps[1].methods() == ["thread/read"]


def test_each_step_prints_the_diff_that_shows_it_again_and_its_worst_keys_first() -> None:
    points = [
        _point(f"exploration thread/read idle v{n}", "0.150.0", "0.151.0", "INFO") for n in range(3)
    ] + [_point("exploration thread/list none minimal", "0.150.0", "0.151.0", "ERR")]
    text = "\n".join(
        render(steps_of(points, "exploration"), aspect="exploration", history="h", examples=2)
    )
    assert "codex-probe diff --history h --from 0.150.0 --to 0.151.0 --aspect exploration" in text
    assert "4 key(s) (1 ERR, 3 INFO) of 2 method(s)" in text
    listed = [line for line in text.splitlines() if line.startswith("- `")]
    assert listed[0].startswith("- `exploration thread/list none minimal` [ERR")
    assert "- ... and 2 more" in text


def test_a_history_file_that_does_not_load_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "history.json").write_text(json.dumps({"releases": 7}))
    assert main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "history.json" in err
