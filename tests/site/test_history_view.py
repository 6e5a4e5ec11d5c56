"""The one reading of a history folder that the site and can-i-upgrade share: today's
history.json and verdicts, and the fields newer histories add when they are there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codex_probe.probes.domain.findings import Finding, Verdict
from codex_probe.probes.domain.surface.release import ASPECTS
from codex_probe.probes.domain.verdict_file import load_verdict
from codex_probe.probes.domain.watch import WATCH_FINDINGS, WATCHED, State
from codex_probe.probes.releases.grid import describe
from codex_probe.probes.releases.history import load_history, save_history
from codex_probe.reporting.history_files import HistoryViewError, portable
from codex_probe.reporting.history_view import HistoryView
from tests.site.recorded import (
    AFTER,
    BEFORE,
    DEVELOPER,
    FIELD,
    MOVED,
    QUEUED,
    STEERED,
    Findings,
    placement,
    queued_steer,
    surface_files,
    write_history,
)


def test_change_points_are_computed_from_the_releases_when_the_history_has_none(
    tmp_path: Path,
) -> None:
    view = HistoryView.load(write_history(tmp_path))
    assert not view.change_points_given
    found = {(p.kind, p.key): p for p in view.change_points}
    verdict = found[("verdict", "steer-mid-answer-keeps-reply")]
    assert (verdict.last_same, verdict.first_changed) == (BEFORE, MOVED)
    assert (verdict.before, verdict.after) == ("holds", "changed")
    moved = found[("observed", "base-developer-placement")]
    assert (moved.before["base_at"], moved.after["base_at"]) == ([FIELD], [DEVELOPER])
    assert view.subject(moved) == "base-developer-placement"
    # An observed value of a finding whose verdict changed is part of the verdict's change.
    assert ("observed", "steer-mid-answer-keeps-reply") not in found
    # Only an id differs in the refusal's message: not a change.
    assert not view.points_of("error-resume-unknown-thread")
    assert {p.first_changed for p in view.change_points} == {MOVED}


def test_a_history_without_change_points_shows_the_ones_history_json_would_list(
    tmp_path: Path,
) -> None:
    def aspects(version: str) -> dict[str, dict[str, Any]]:
        methods = {"client request thread/start": {"params": {"cwd": "string"}}}
        if version != BEFORE:
            methods["client request thread/fork"] = {"params": {"threadId": "string"}}
        return {"schema": methods}

    recorded = queued_steer({BEFORE: False, MOVED: True, AFTER: None})
    folder = write_history(tmp_path, recorded=recorded, surface=surface_files(tmp_path, aspects))
    computed = HistoryView.load(folder)
    save_history(folder / "history.json", load_history(folder / "history.json"))
    given = HistoryView.load(folder)
    assert not computed.change_points_given and given.change_points_given
    assert computed.change_points == given.change_points
    assert [computed.subject(p) for p in computed.change_points] == [
        given.subject(p) for p in given.change_points
    ]
    assert [(p.kind, p.key, p.first_changed) for p in computed.change_points] == [
        ("verdict", STEERED, MOVED),
        ("verdict", "steer-mid-answer-keeps-reply", MOVED),
        ("observed", "base-developer-placement", MOVED),
        ("observed", "start-applies-instructions", MOVED),
        ("surface", "schema client request thread/fork", MOVED),
        ("watch", QUEUED, MOVED),
        ("verdict", STEERED, AFTER),
    ]


def test_a_release_that_cannot_run_does_not_hide_a_change_across_it(tmp_path: Path) -> None:
    view = HistoryView.load(write_history(tmp_path, (BEFORE, AFTER), unavailable=[MOVED]))
    assert view.versions == [BEFORE, MOVED, AFTER]
    assert view.probed_versions == [BEFORE, AFTER]
    points = [p for p in view.change_points if p.kind == "verdict"]
    assert [(p.key, p.last_same, p.first_changed) for p in points] == [
        ("steer-mid-answer-keeps-reply", BEFORE, AFTER)
    ]


def test_the_history_s_own_change_points_are_used_as_given_each_on_its_row(
    tmp_path: Path,
) -> None:
    given = [
        {"kind": "verdict", "key": "steer-mid-answer-keeps-reply", "first_changed": MOVED,
         "last_same": BEFORE, "before": "holds", "after": "changed"},
        {"kind": "observed", "key": "base-developer-placement.base_at", "first_changed": MOVED,
         "last_same": BEFORE, "before": [FIELD], "after": [DEVELOPER]},
        {"kind": "surface", "key": "notifications/turn-1", "first_changed": MOVED,
         "last_same": BEFORE, "before": "sha256:1", "after": "sha256:2"},
    ]  # fmt: skip
    surface = {"aspects": {"notifications": "sha256:1", "answers": "sha256:a"}}
    view = HistoryView.load(
        write_history(tmp_path, change_points=given, surface=lambda version: surface)
    )
    assert view.change_points_given
    assert [p.to_json() for p in view.change_points] == given
    assert [view.subject(p) for p in view.change_points] == [
        "steer-mid-answer-keeps-reply",
        "base-developer-placement",
        "notifications",
    ]


def test_paths_of_the_machine_that_made_the_history_are_written_relative_to_it() -> None:
    assert portable(
        {"path": "/home/runner/work/x/reports/history-shard-2/releases/0.162.0/learned/a.json"}
    ) == {"path": "releases/0.162.0/learned/a.json"}
    assert (
        portable("fake-codex on /work/main/fake_appserver/profiles/0.171.0.json is faithful")
        == "fake-codex on codex_probe/fake_appserver/profiles/0.171.0.json is faithful"
    )


def test_a_fidelity_finding_names_no_profile_path_and_has_no_change_across_releases(
    tmp_path: Path,
) -> None:
    view = HistoryView.load(write_history(tmp_path))
    found = view.recorded(MOVED, "fake-fidelity-start")
    assert found is not None
    assert found.finding.observed["profile"]["path"] == f"releases/{MOVED}/learned/x.json"
    assert "/home/runner" not in found.finding.statement
    assert not view.points_of("fake-fidelity-start")


def test_a_difference_names_where_its_new_value_began_and_how_often_it_changed(
    tmp_path: Path,
) -> None:
    view = HistoryView.load(write_history(tmp_path, ("0.160.0", BEFORE, MOVED, AFTER)))
    found = {d.key: d for d in view.differences("0.160.0", AFTER)}
    steer = found["steer-mid-answer-keeps-reply"]
    assert (steer.before, steer.after) == ("holds", "changed")
    assert (steer.last_same, steer.first_changed, steer.changes) == (BEFORE, MOVED, 1)
    assert "base-developer-placement.base_at" in found
    assert "error-resume-unknown-thread.message" not in found
    assert view.differences(MOVED, AFTER) == []


def test_the_verdict_file_adds_the_statement_evidence_and_bundle_to_each_finding(
    tmp_path: Path,
) -> None:
    view = HistoryView.load(write_history(tmp_path))
    found = view.recorded(MOVED, "steer-mid-answer-keeps-reply")
    assert found is not None
    cell = found.finding
    assert cell.statement.startswith("A turn/steer that arrives while the model is answering")
    assert cell.evidence and cell.reproduce.endswith("--only steer-mid-answer-keeps-reply")
    assert (
        found.bundle
        == tmp_path / "releases" / MOVED / "repro" / f"steer-mid-answer-keeps-reply-{MOVED}"
    )
    release = view.release(MOVED)
    assert release is not None and release.profile_file is not None
    assert release.profile_file.name == f"{MOVED}.json"


def test_a_recorded_finding_is_its_verdict_files_finding_with_history_jsons_record_in_place(
    tmp_path: Path,
) -> None:
    folder = write_history(tmp_path)
    path = folder / "history.json"
    document = json.loads(path.read_text())
    recorded = document["releases"][MOVED]["findings"]["steer-mid-answer-keeps-reply"]
    recorded.update(verdict="broken", summary="harness broken: recorded after the verdict file")
    path.write_text(json.dumps(document))
    found = HistoryView.load(folder).recorded(MOVED, "steer-mid-answer-keeps-reply")
    assert found is not None and isinstance(found.finding, Finding)
    # history.json's record, which its change points were computed from, wins ...
    assert found.finding.verdict is Verdict.BROKEN
    assert found.finding.summary == "harness broken: recorded after the verdict file"
    # ... over the verdict file's, which adds what history.json does not keep.
    judged = load_verdict(folder / "releases" / MOVED / "verdict.json")
    kept = judged.findings[MOVED]["steer-mid-answer-keeps-reply"]
    assert kept.verdict is Verdict.CHANGED
    assert (found.finding.statement, found.finding.evidence, found.finding.repro) == (
        kept.statement,
        kept.evidence,
        kept.repro,
    )


def test_a_history_without_verdict_files_is_read_from_history_json_alone(tmp_path: Path) -> None:
    view = HistoryView.load(write_history(tmp_path, with_files=False))
    found = view.recorded(MOVED, "steer-mid-answer-keeps-reply")
    assert found is not None and found.finding.verdict == "changed" and found.bundle is None
    info = view.finding("steer-mid-answer-keeps-reply")
    assert info is not None and info.statement  # from the registry


def test_surface_aspects_are_read_from_surface_json_or_else_from_the_digest(
    tmp_path: Path,
) -> None:
    digests = {BEFORE: "sha256:1", MOVED: "sha256:2", AFTER: "sha256:2"}
    view = HistoryView.load(
        write_history(tmp_path / "digest", surface=lambda version: {"digest": digests[version]})
    )
    assert view.aspects == ["surface"]
    assert [view.value("surface", "surface", v) for v in (BEFORE, MOVED)] == [
        "sha256:1",
        "sha256:2",
    ]
    # A digest says that the surface changed, not which key: history.json lists no change.
    assert [p for p in view.change_points if p.kind == "surface"] == []

    def schema(version: str) -> dict[str, dict[str, Any]]:
        methods = ["thread/start"] + (["thread/fork"] if version != BEFORE else [])
        return {"schema": {f"client request {m}": {"params": {}} for m in methods}}

    folder = tmp_path / "files"
    view = HistoryView.load(write_history(folder, surface=surface_files(folder, schema)))
    assert view.aspects == list(ASPECTS)  # one row per aspect, as the grid draws them
    assert view.value("surface", "schema", MOVED) != view.value("surface", "schema", BEFORE)
    assert view.value("surface", "answers", MOVED) == view.value("surface", "answers", BEFORE)
    forked = [p for p in view.change_points if p.kind == "surface"]
    assert [(p.key, view.subject(p), p.first_changed) for p in forked] == [
        ("schema client request thread/fork", "schema", MOVED)
    ]


def test_a_watched_bug_s_state_is_the_watch_list_s_decision_from_the_recorded_findings(
    tmp_path: Path,
) -> None:
    recorded = queued_steer({BEFORE: True, MOVED: True, AFTER: False})
    view = HistoryView.load(write_history(tmp_path, recorded=recorded))
    assert [(w.issue, w.title, w.url) for w in view.watched] == [
        (w.issue, w.title, w.url) for w in WATCHED
    ]
    assert view.watch_state(MOVED, QUEUED) == "present"
    assert view.watch_state(AFTER, QUEUED) == "absent"
    assert view.issue_findings(QUEUED) == [STEERED]
    assert [w.issue for w in view.issues_decided_by(STEERED)] == [QUEUED]
    # The judge's upstream field, made from the recorded values where none was recorded.
    found = view.recorded(MOVED, STEERED)
    assert found is not None and found.finding.upstream == [{"issue": QUEUED, "state": "present"}]
    fixed = [p for p in view.change_points if p.kind == "watch"]
    assert [describe(p) for p in fixed] == [f"{QUEUED} fixed in {AFTER} (present in {MOVED})"]


def test_a_release_that_could_not_decide_a_watched_bug_says_why_and_is_no_change(
    tmp_path: Path,
) -> None:
    recorded = queued_steer({BEFORE: True, MOVED: None, AFTER: False})
    view = HistoryView.load(write_history(tmp_path, recorded=recorded))
    undecided = view.watch_decision(MOVED, QUEUED)
    assert undecided is not None and undecided.state is State.BROKEN
    assert undecided.why.startswith(f"{STEERED} is broken")
    assert view.watch_state(MOVED, QUEUED) is None
    fixed = [(p.last_same, p.first_changed) for p in view.change_points if p.kind == "watch"]
    assert fixed == [(BEFORE, AFTER)]


def test_a_history_without_the_findings_the_watch_list_reads_watches_nothing(
    tmp_path: Path,
) -> None:
    def unwatched(version: str) -> Findings:
        return {f: found for f, found in placement(version).items() if f not in WATCH_FINDINGS}

    view = HistoryView.load(write_history(tmp_path, recorded=unwatched))
    assert view.watched == [] and view.watch_state(MOVED, QUEUED) is None
    assert [p for p in view.change_points if p.kind == "watch"] == []


def test_a_history_that_is_not_json_is_an_error_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "history.json").write_text("{")
    with pytest.raises(HistoryViewError, match=r"history\.json:1:\d+: not JSON"):
        HistoryView.load(tmp_path)


def test_a_verdict_file_that_is_not_json_is_an_error_naming_it(tmp_path: Path) -> None:
    folder = write_history(tmp_path)
    (folder / "releases" / MOVED / "verdict.json").write_text("[")
    with pytest.raises(HistoryViewError, match=rf"releases/{MOVED}/verdict\.json:1:2: not JSON"):
        HistoryView.load(folder)
