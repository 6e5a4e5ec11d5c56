"""can-i-upgrade: yes, no or unknown between two releases, from the recorded history."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from codex_probe.cli import main as cli
from codex_probe.cli.commands import can_i_upgrade
from codex_probe.reporting.baseline import AcceptedChange, AcceptedChanges
from codex_probe.reporting.history_view import HistoryView
from codex_probe.reporting.upgrade import NO, UNKNOWN, YES, judge_upgrade
from tests.site.recorded import (
    AFTER,
    BEFORE,
    DEVELOPER,
    FIELD,
    MOVED,
    Findings,
    placement,
    surface_files,
    write_history,
)

RANGE = [BEFORE, MOVED, AFTER]


def history(
    tmp_path: Path, recorded: dict[str, Findings] | None = None, unavailable: tuple[str, ...] = ()
) -> HistoryView:
    """RANGE recorded: placement() on each release, but where `recorded` says otherwise."""
    table = recorded or {}
    folder = write_history(
        tmp_path / "history",
        [v for v in RANGE if v not in unavailable],
        recorded=lambda v: table.get(v) or placement(v),
        unavailable=unavailable,
    )
    return HistoryView.load(folder)


def with_verdict(version: str, finding: str, verdict: str, **observed: object) -> Findings:
    found = placement(version)
    found[finding] = (verdict, dict(observed) or found[finding][1])
    return found


def test_the_move_of_0_162_0_changes_no_required_verdict_so_the_answer_is_yes(
    tmp_path: Path,
) -> None:
    answer = judge_upgrade(history(tmp_path), BEFORE, MOVED, RANGE[:2])
    assert answer.exit_code == YES
    moved = next(
        c for c in answer.changes if c.difference.key == "base-developer-placement.base_at"
    )
    assert (moved.difference.before, moved.difference.after) == ([FIELD], [DEVELOPER])
    assert (moved.difference.first_changed, moved.blocking) == (MOVED, False)
    text = "\n".join(answer.lines())
    assert text.startswith(f"can I upgrade codex-cli {BEFORE} -> {MOVED}? yes")
    assert "nothing the design requires changed; changed, not gated:" in text
    assert f"steer-mid-answer-keeps-reply (informative, spec 4.6), first in {MOVED}" in text


def test_strict_counts_an_informative_assumption_that_stopped_holding(tmp_path: Path) -> None:
    answer = judge_upgrade(history(tmp_path), BEFORE, AFTER, RANGE, strict=True)
    assert answer.exit_code == NO
    text = "\n".join(answer.lines())
    assert "changed, and gated (required assumptions; with --strict, informative ones too):" in text
    assert f"  - steer-mid-answer-keeps-reply (informative, spec 4.6), first in {MOVED} " in text
    assert f"      evidence on {AFTER}: real {AFTER} step turn-1" in text


def test_a_required_assumption_that_stopped_holding_says_no_naming_its_first_release(
    tmp_path: Path,
) -> None:
    broken_at = {
        v: with_verdict(v, "start-empty-and-omitted", "changed", x=1) for v in (MOVED, AFTER)
    }
    answer = judge_upgrade(history(tmp_path, broken_at), BEFORE, AFTER, RANGE)
    assert answer.exit_code == NO
    blocking = [c for c in answer.changes if c.forbids]
    assert [
        (c.difference.key, c.difference.first_changed, c.difference.last_same) for c in blocking
    ] == [("start-empty-and-omitted", MOVED, BEFORE)]
    assert json.loads(json.dumps(answer.to_json()))["answer"] == "no"


def test_the_baseline_accepts_the_target_s_verdict_and_a_stale_entry_says_no(
    tmp_path: Path,
) -> None:
    broken_at = {
        v: with_verdict(v, "start-empty-and-omitted", "changed", x=1) for v in (MOVED, AFTER)
    }
    view = history(tmp_path, broken_at)
    accepted = AcceptedChanges(
        (AcceptedChange(AFTER, "start-empty-and-omitted", "changed", "the dispatcher copes"),)
    )
    answer = judge_upgrade(view, BEFORE, AFTER, RANGE, baseline=accepted)
    assert answer.exit_code == YES
    assert "accepted: the dispatcher copes" in "\n".join(answer.lines())
    stale = AcceptedChanges((AcceptedChange(AFTER, "base-developer-placement", "changed", "old"),))
    answer = judge_upgrade(view, BEFORE, AFTER, RANGE, baseline=stale)
    assert answer.exit_code == NO
    assert answer.stale == [
        f"base-developer-placement on {AFTER}: the baseline expects changed, it holds"
    ]


def test_a_change_that_came_and_went_between_the_two_is_no_change(tmp_path: Path) -> None:
    went = {MOVED: with_verdict(MOVED, "start-empty-and-omitted", "changed", x=1)}
    view = history(tmp_path, {**went, AFTER: placement(MOVED)})
    answer = judge_upgrade(view, BEFORE, AFTER, RANGE)
    assert answer.exit_code == YES
    assert "start-empty-and-omitted" not in {c.difference.subject for c in answer.changes}


def test_an_assumption_changed_on_both_but_differently_says_no(tmp_path: Path) -> None:
    both = {
        BEFORE: with_verdict(BEFORE, "start-empty-and-omitted", "changed", x=1),
        MOVED: with_verdict(MOVED, "start-empty-and-omitted", "changed", x=2),
    }
    answer = judge_upgrade(history(tmp_path, both), BEFORE, MOVED, RANGE[:2])
    assert answer.exit_code == NO
    same = judge_upgrade(
        history(tmp_path / "same", {**both, MOVED: both[BEFORE]}), BEFORE, MOVED, RANGE[:2]
    )
    assert same.exit_code == YES  # as changed as before: nothing new to live with


def test_a_required_assumption_that_holds_again_is_said_and_does_not_block(tmp_path: Path) -> None:
    fixed = {BEFORE: with_verdict(BEFORE, "start-empty-and-omitted", "changed", x=1)}
    answer = judge_upgrade(history(tmp_path, fixed), BEFORE, MOVED, RANGE[:2])
    assert answer.exit_code == YES
    assert any(
        c.difference.key == "start-empty-and-omitted" and c.difference.after == "holds"
        for c in answer.changes
    )


def test_a_required_finding_broken_on_a_release_between_makes_the_answer_unknown(
    tmp_path: Path,
) -> None:
    broken = {MOVED: with_verdict(MOVED, "start-empty-and-omitted", "broken", error="hung")}
    answer = judge_upgrade(history(tmp_path, broken), BEFORE, AFTER, RANGE)
    assert answer.exit_code == UNKNOWN
    assert answer.unknown == [
        f"{MOVED}: start-empty-and-omitted is broken: assumption changed upstream: "
        "start-empty-and-omitted"
    ]
    # A known change is news all the same: no beats unknown.
    also = {**broken, AFTER: with_verdict(AFTER, "base-developer-placement", "changed", x=1)}
    assert judge_upgrade(history(tmp_path / "both", also), BEFORE, AFTER, RANGE).exit_code == NO


def test_a_release_without_a_record_is_unknown_and_one_that_cannot_run_is_skipped(
    tmp_path: Path,
) -> None:
    view = history(tmp_path, unavailable=(MOVED,))
    answer = judge_upgrade(view, BEFORE, AFTER, RANGE)
    assert (answer.exit_code, answer.not_installable) == (YES, [MOVED])
    assert f"not installable, skipped: {MOVED}" in answer.lines()[1]
    missing = judge_upgrade(view, BEFORE, "0.163.0", [*RANGE, "0.163.0"])
    assert missing.exit_code == UNKNOWN
    assert missing.unknown == ["0.163.0: not recorded in the history"]
    assert missing.lines()[-1] == f"  {BEFORE} and 0.163.0 cannot be compared: 0.163.0 not probed"


def run_command(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    """The command in this process, the published releases being RANGE (no npm)."""
    monkeypatch.setattr(
        can_i_upgrade, "published_range", lambda a, b: [v for v in RANGE if a <= v <= b]
    )
    code = cli.main(["can-i-upgrade", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_command_answers_from_the_history_folder_without_probing_what_it_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_history(tmp_path / "history")
    monkeypatch.setattr(can_i_upgrade, "sweep", lambda *a, **k: pytest.fail("probed"))
    code, out, err = run_command(
        ["--from", BEFORE, "--to", AFTER, "--history", str(folder), "--json"], monkeypatch, capsys
    )
    assert (code, err) == (YES, "")
    answer = json.loads(out)
    assert (answer["answer"], answer["releases"], answer["probed_now"]) == ("yes", RANGE, [])
    code, out, _ = run_command(
        ["--from", BEFORE, "--to", AFTER, "--history", str(folder), "--strict"], monkeypatch, capsys
    )
    assert code == NO and out.startswith(f"can I upgrade codex-cli {BEFORE} -> {AFTER}? no\n")


def test_the_command_probes_only_the_releases_the_history_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_history(tmp_path / "history", [BEFORE, AFTER])
    whole = write_history(tmp_path / "whole")
    probed: list[list[str]] = []

    def sweep(todo: list[str], out: Path, document: dict[str, object], **kwargs: object) -> None:
        probed.append(todo)
        # As the sweep records them: the release's folder, and history.json saved.
        shutil.copytree(whole / "releases" / MOVED, out / "releases" / MOVED)
        shutil.copyfile(whole / "history.json", out / "history.json")

    monkeypatch.setattr(can_i_upgrade, "sweep", sweep)
    code, out, err = run_command(
        ["--from", BEFORE, "--to", AFTER, "--history", str(folder)], monkeypatch, capsys
    )
    assert probed == [[MOVED]]
    assert f"probing 1 release(s) the history lacks: {MOVED}" in err
    assert code == YES and "3 release(s) recorded" in out and "1 probed now" in out


def test_no_run_answers_unknown_for_a_release_the_history_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_history(tmp_path / "history", [BEFORE, AFTER])
    code, out, _ = run_command(
        ["--from", BEFORE, "--to", AFTER, "--history", str(folder), "--no-run"], monkeypatch, capsys
    )
    assert code == UNKNOWN
    assert f"  - {MOVED}: not recorded in the history" in out


def test_a_baseline_that_cannot_be_read_is_a_usage_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "base.toml").write_text("[[expected]]\ncodex = 1\n")
    code, _, err = run_command(
        ["--from", BEFORE, "--to", AFTER, "--baseline", str(tmp_path / "base.toml")],
        monkeypatch,
        capsys,
    )
    assert code == 2
    assert err.startswith(f"codex-probe can-i-upgrade: {tmp_path / 'base.toml'}: expected #1")


def resume_answer(version: str) -> dict[str, dict[str, Any]]:
    """The answers aspect of a release: thread/resume answers a new field from MOVED on."""
    shape = {"$": "object", "thread": "object"}
    if version != BEFORE:
        shape["thread.fresh"] = "boolean"
    return {"answers": {"errors resume thread/resume": shape}}


def test_a_surface_change_is_told_by_its_keys_and_values_not_two_digests(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "history"
    view = HistoryView.load(
        write_history(folder, RANGE, surface=surface_files(folder, resume_answer))
    )
    answer = judge_upgrade(view, BEFORE, AFTER, RANGE)
    lines = answer.lines()
    at = lines.index(f"  - answers (surface), first in {MOVED} (last same: {BEFORE}):")
    assert lines[at + 1 : at + 4] == [
        "      1 key(s) differ:",
        "        [driver] errors resume thread/resume",
        "          + thread.fresh: boolean",
    ]
    assert "sha256:" not in "\n".join(lines)
    (change,) = [c for c in answer.to_json()["changes"] if c["kind"] == "surface"]
    assert change["keys"] == [
        {
            "aspect": "answers",
            "key": "errors resume thread/resume",
            "before": {"$": "object", "thread": "object"},
            "after": {"$": "object", "thread": "object", "thread.fresh": "boolean"},
            "driver_relevant": True,
            "rule": "response-field-added",
            "severity": "INFO",
            "details": [
                {
                    "rule": "response-field-added",
                    "severity": "INFO",
                    "where": "thread.fresh",
                    "before": None,
                    "after": "boolean",
                }
            ],
        }
    ]
