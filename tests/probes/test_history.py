"""history.json, its shards and merge, and the grid that marks change points."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness.tool import TOOL
from codex_probe.probes.domain.stability import comparable
from codex_probe.probes.domain.surface.file import write_surfaces
from codex_probe.probes.domain.surface.release import ASPECTS, Surface
from codex_probe.probes.domain.watch import WATCHED, issue_states, state_changes
from codex_probe.probes.releases.change_points import ChangePoint
from codex_probe.probes.releases.grid import (
    CELL,
    GAP,
    LEFT,
    TOP,
    change_points,
    describe,
    render_html,
    render_svg,
    rows,
)
from codex_probe.probes.releases.history import (
    HistoryError,
    Shard,
    broken_findings,
    is_current,
    load_history,
    merge_histories,
    probe_set,
    save_history,
    surface_path,
    unavailable_entry,
    unavailable_releases,
)
from codex_probe.probes.releases.sweep import to_probe
from tests.cli import codex_probe


def entry(probed_at: str, **verdicts: str) -> dict[str, Any]:
    return {
        "tool": TOOL,
        "probe_set": probe_set(),
        "probed_at": probed_at,
        "findings": {
            finding: {"verdict": verdict, "required": True, "observed": {"at": verdict}}
            for finding, verdict in verdicts.items()
        },
    }


def history(**releases: dict[str, Any]) -> dict[str, Any]:
    return {"tool": TOOL, "releases": {v.replace("_", "."): e for v, e in releases.items()}}


def test_a_shard_takes_every_nth_release_so_old_and_new_spread_over_the_jobs() -> None:
    releases = [f"0.{i}.0" for i in range(10)]
    shards = [Shard.parse(f"{k}/3").take(releases) for k in (1, 2, 3)]
    assert shards[0] == ["0.0.0", "0.3.0", "0.6.0", "0.9.0"]
    together = [release for shard in shards for release in shard]
    assert sorted(together, key=lambda v: int(v.split(".")[1])) == releases


@pytest.mark.parametrize("text", ["0/2", "3/2", "x", "1/2/3", "1-2"])
def test_a_shard_that_is_not_k_of_n_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="K"):
        Shard.parse(text)


def test_merge_joins_shards_and_keeps_the_later_run_of_a_release_recorded_twice() -> None:
    first = history(v0_1_0=entry("2026-12-01T10:00:00Z", a="holds"))
    second = history(
        v0_1_0=entry("2026-12-01T11:00:00Z", a="changed"),
        v0_2_0=entry("2026-12-01T11:00:00Z", a="holds"),
    )
    merged = merge_histories([(Path("1.json"), first), (Path("2.json"), second)])
    assert sorted(merged["releases"]) == ["v0.1.0", "v0.2.0"]
    assert merged["releases"]["v0.1.0"]["findings"]["a"]["verdict"] == "changed"


def test_merge_refuses_a_release_without_findings_naming_the_file() -> None:
    broken = {"releases": {"0.1.0": {"tool": TOOL}}}
    with pytest.raises(HistoryError, match=r"bad\.json: release 0\.1\.0 has no findings"):
        merge_histories([(Path("bad.json"), broken)])


def test_a_record_by_another_tool_or_probe_set_is_probed_again() -> None:
    current = entry("t", a="holds")
    assert is_current(current)
    assert not is_current({**current, "tool": "codex-probe 0.0.1"})
    assert not is_current({**current, "probe_set": "sha256:old"})


def test_change_points_mark_verdict_changes_and_observed_changes_but_not_ids() -> None:
    document = history(
        **{
            "0_1_0": entry("t", a="holds", b="holds"),
            "0_2_0": entry("t", a="changed", b="holds"),
            "0_10_0": entry("t", a="changed", b="holds"),
        }
    )
    document["releases"]["0.2.0"]["findings"]["b"]["observed"] = {"at": "moved"}
    document["releases"]["0.10.0"]["findings"]["b"]["observed"] = {"at": "moved"}
    document["releases"]["0.10.0"]["findings"]["a"]["observed"] = {
        "at": "changed",
        "profile": {"path": "/elsewhere"},
    }
    points = [(p.key, p.kind, p.last_same, p.first_changed) for p in change_points(document)]
    assert points == [("a", "verdict", "0.1.0", "0.2.0"), ("b", "observed", "0.1.0", "0.2.0")]


def test_ids_in_observed_messages_are_not_changes() -> None:
    one = {"message": "thread not found: 01a2314d-c4cb-7e80-b0c3-de5c25900389"}
    two = {"message": "thread not found: 01a2314e-466b-7bc1-8116-6403a8e4d652"}
    assert comparable(one) == comparable(two)


def test_the_grid_draws_a_bar_at_a_verdict_change_and_lists_it_on_the_page() -> None:
    document = history(
        **{
            "0_1_0": entry("t", **{"base-developer-placement": "holds"}),
            "0_2_0": entry("t", **{"base-developer-placement": "changed"}),
        }
    )
    svg = render_svg(document)
    assert svg.count("<rect") == 1 + 2 + 1  # background, two cells, one change bar
    assert "verdict changed: holds -&gt; changed" in svg
    page = render_html(document, "history.svg")
    assert '<img src="history.svg"' in page
    assert "<b>base-developer-placement</b>: verdict changed in <b>0.2.0</b>" in page
    assert rows(document) == ["base-developer-placement"]


def test_a_history_file_that_is_not_json_is_one_line_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    path.write_text("{ nope")
    with pytest.raises(HistoryError, match=rf"{path}:1:\d+: not JSON"):
        load_history(path)


def test_history_into_a_file_is_a_usage_error_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "taken"
    out.write_text("")
    done = codex_probe("history", "--out", str(out))
    assert done.returncode == 2
    assert done.stderr == f"codex-probe history: --out {out} is a file, not a folder\n"


def test_a_bad_shard_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    done = codex_probe("history", "--shard", "3/2", "--out", str(tmp_path))
    assert done.returncode == 2
    assert "argument --shard: shard 3/2: K must be between 1 and N" in done.stderr


def test_history_merge_writes_the_joined_history_and_its_grid(tmp_path: Path) -> None:
    inputs = []
    for name, document in (
        ("1.json", history(**{"0_1_0": entry("t1", a="holds")})),
        ("2.json", history(**{"0_2_0": entry("t1", a="changed")})),
    ):
        inputs.append(tmp_path / name)
        inputs[-1].write_text(json.dumps(document))
    done = codex_probe("history", "merge", *map(str, inputs), "--out", str(tmp_path / "all"))
    assert done.returncode == 0, done.stderr
    merged = json.loads((tmp_path / "all" / "history.json").read_text())
    assert list(merged["releases"]) == ["0.1.0", "0.2.0"]
    assert (tmp_path / "all" / "history.html").is_file()
    assert "a: verdict changed in 0.2.0 (last same: 0.1.0): holds -> changed" in done.stdout


def test_merge_copies_each_release_folder_from_beside_the_history_whose_record_it_keeps(
    tmp_path: Path,
) -> None:
    # The previous run's history (with its release folders) and a shard that carried its
    # records along without their folders, and probed 0.2.0 again later.
    previous, shard = tmp_path / "previous", tmp_path / "shard"
    old = history(
        **{"0_1_0": entry("t1", a="holds"), "0_2_0": entry("t1", a="holds")},
    )
    new = history(
        **{"0_1_0": entry("t1", a="holds"), "0_2_0": entry("t2", a="changed")},
    )
    for folder, document in ((shard, new), (previous, old)):
        folder.mkdir()
        (folder / "history.json").write_text(json.dumps(document))
    for version in ("0.1.0", "0.2.0"):
        (previous / "releases" / version).mkdir(parents=True)
        (previous / "releases" / version / "verdict.json").write_text("old " + version)
    (shard / "releases" / "0.2.0").mkdir(parents=True)
    (shard / "releases" / "0.2.0" / "verdict.json").write_text("new 0.2.0")
    out = tmp_path / "all"
    done = codex_probe(
        "history",
        "merge",
        str(shard / "history.json"),
        str(previous / "history.json"),
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    assert (out / "releases" / "0.1.0" / "verdict.json").read_text() == "old 0.1.0"
    assert (out / "releases" / "0.2.0" / "verdict.json").read_text() == "new 0.2.0"


def test_a_record_with_a_broken_finding_is_probed_again_and_a_current_one_is_not() -> None:
    document = history(
        **{
            "0_1_0": entry("t", a="holds"),
            "0_2_0": entry("t", a="broken"),
            "0_3_0": {**entry("t", a="holds"), "tool": "codex-probe 0.0.1"},
        }
    )
    assert to_probe(["0.1.0", "0.2.0", "0.3.0", "0.4.0"], document) == ["0.2.0", "0.3.0", "0.4.0"]


def test_a_release_that_cannot_run_is_listed_apart_and_is_neither_broken_nor_missing() -> None:
    document = history(**{"0_1_0": entry("t", a="holds"), "0_2_0": unavailable_entry("no binary")})
    assert broken_findings(document) == []
    assert unavailable_releases(document) == {"0.2.0": "no binary"}
    assert to_probe(["0.2.0"], document) == []
    page = render_html(document, "history.svg")
    assert "<h2>Not installable: nothing to probe</h2>" in page and "no binary" in page
    assert "not installable: no binary" in render_svg(document)


def test_an_interrupted_history_says_what_it_was_asked_for_and_what_it_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal

    from codex_probe.cli.commands import history as history_command
    from codex_probe.cli.main import main
    from codex_probe.harness.interrupts import Interrupted

    asked = ["0.160.0", "0.160.1", "0.161.0", "0.162.0"]
    monkeypatch.setattr(history_command, "published_range", lambda first, last: asked)

    def sweep_one_then_stop(releases: list[str], out: Path, document: Any, **_: Any) -> None:
        document["releases"][releases[0]] = unavailable_entry("not installable here")
        raise Interrupted(signal.SIGTERM)

    monkeypatch.setattr(history_command, "sweep", sweep_one_then_stop)
    out = tmp_path / "history"
    code = main(["history", "--from", asked[0], "--to", asked[-1], "--out", str(out)])
    assert code == 143
    document = json.loads((out / "history.json").read_text())
    assert document["asked"] == {"from": asked[0], "to": asked[-1], "releases": asked}
    assert document["complete"] is False and document["missing"] == asked[1:]
    page = (out / "history.html").read_text()
    assert "Incomplete:" in page and "asked for 4 releases from 0.160.0 to 0.162.0" in page


def with_surface(
    folder: Path,
    document: dict[str, Any],
    version: str,
    missing: tuple[str, ...] = (),
    **aspects: Any,
) -> None:
    """Record a surface of `version` in a history folder, as a sweep does."""
    found = Surface(version, {a: dict(aspects.get(a, {})) for a in ASPECTS}, missing)
    write_surfaces(folder / surface_path(version), {version: found})
    document["releases"][version]["surface"] = {
        "digest": found.digest(),
        "path": surface_path(version),
        "missing": list(missing),
    }


def surface_history(folder: Path) -> dict[str, Any]:
    document = history(
        **{v.replace(".", "_"): entry("t", a="holds") for v in ("0.1.0", "0.2.0", "0.3.0", "0.4.0")}
    )
    params = {"params": {"cwd": "string", "model": "null|string"}}
    with_surface(folder, document, "0.1.0", schema={"client request thread/start": params})
    with_surface(
        folder,
        document,
        "0.2.0",
        schema={"client request thread/start": {"params": {"cwd": "string", "model": "string"}}},
        answers={"s A thread/list": {"$": "object"}},
    )
    with_surface(  # the scenario s broke: its keys are a gap, not gone
        folder,
        document,
        "0.3.0",
        missing=("s",),
        schema={"client request thread/start": {"params": {"cwd": "string", "model": "string"}}},
    )
    with_surface(
        folder,
        document,
        "0.4.0",
        schema={"client request thread/start": {"params": {"cwd": "string", "model": "string"}}},
    )
    return document


def test_surface_change_points_name_the_key_both_releases_and_only_what_differs(
    tmp_path: Path,
) -> None:
    document = surface_history(tmp_path)
    save_history(tmp_path / "history.json", document)
    saved = json.loads((tmp_path / "history.json").read_text())
    surface = [p for p in saved["change_points"] if p["kind"] == "surface"]
    assert surface == [
        {
            "kind": "surface",
            "key": "answers s A thread/list",
            "first_changed": "0.2.0",
            "last_same": "0.1.0",
            "before": None,
            "after": {"$": "object"},
            "rule": "answer-new",
            "severity": "INFO",
        },
        {
            "kind": "surface",
            "key": "answers s A thread/list",
            "first_changed": "0.4.0",
            "last_same": "0.2.0",
            "before": {"$": "object"},
            "after": None,
            "rule": "answer-gone",
            "severity": "WARN",
        },
        {
            "kind": "surface",
            "key": "schema client request thread/start",
            "first_changed": "0.2.0",
            "last_same": "0.1.0",
            "before": {"params": {"model": "null|string"}},
            "after": {"params": {"model": "string"}},
            # Its rule read off the whole values: null no longer sent is a narrowing.
            "rule": "request-type-narrowed",
            "severity": "ERR",
        },
    ]
    assert saved["releases"]["0.2.0"]["surface"]["path"] == "releases/0.2.0/surface.json"


def test_the_grid_has_a_row_per_surface_aspect_marked_where_it_changed(tmp_path: Path) -> None:
    document = surface_history(tmp_path)
    save_history(tmp_path / "history.json", document)
    assert rows(document)[-len(ASPECTS) :] == [f"surface: {aspect}" for aspect in ASPECTS]
    svg = render_svg(document)
    assert "1 key(s) changed: client request thread/start" in svg
    page = render_html(document, "history.svg")
    assert "<h2>Surface change points (3)</h2>" in page
    assert "<code>codex-probe diff --history . --from 0.1.0 --to 0.2.0</code>" in page
    assert "~ model: null|string -&gt; string" in page


def test_history_merge_keeps_the_surface_files_of_the_releases_it_joins(tmp_path: Path) -> None:
    shard = tmp_path / "shard-1"
    document = surface_history(shard)
    (shard / "history.json").write_text(json.dumps(document))
    out = tmp_path / "all"
    done = codex_probe("history", "merge", str(shard / "history.json"), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert (out / "releases" / "0.4.0" / "surface.json").is_file()
    merged = json.loads((out / "history.json").read_text())
    assert len([p for p in merged["change_points"] if p["kind"] == "surface"]) == 3
    assert (
        f"0.2.0 (last same: 0.1.0): 1 answers, 1 schema; codex-probe diff --history {out} "
        "--from 0.1.0 --to 0.2.0"
    ) in done.stdout


# ----- the watch list's band and change points ------------------------------------------

SWITCH = "model-switch-sends-base-once"  # decides openai/codex#41491 alone
DUPLICATED = "openai/codex#41491"


def switching(probed_at: str, duplicated: bool | None) -> dict[str, Any]:
    """A release entry whose model-switch finding shows #41491 (True), shows it absent
    (False), or could not tell (None: the finding is broken)."""
    found = entry(probed_at, **{SWITCH: "broken" if duplicated is None else "holds"})
    finding = found["findings"][SWITCH]
    finding["observed"] = {} if duplicated is None else {"base_in_model_switch_block": duplicated}
    if duplicated is None:
        finding["summary"] = "the run recorded no step 'turn-2'"
    return found


def switch_history(*states: bool | None) -> dict[str, Any]:
    return history(**{f"0_{n}_0": switching("t", state) for n, state in enumerate(states, 1)})


def watch_points(document: dict[str, Any], tmp_path: Path) -> list[dict[str, Any]]:
    save_history(tmp_path / "history.json", document)
    saved = json.loads((tmp_path / "history.json").read_text())
    return [p for p in saved["change_points"] if p["kind"] == "watch"]


def test_a_watched_issue_fixed_in_a_release_is_a_watch_change_point_that_says_fixed_in_it(
    tmp_path: Path,
) -> None:
    points = watch_points(switch_history(True, True, False), tmp_path)
    assert points == [
        {
            "kind": "watch",
            "key": DUPLICATED,
            "first_changed": "0.3.0",
            "last_same": "0.2.0",
            "before": "present",
            "after": "absent",
        }
    ]
    assert describe(ChangePoint.from_json(points[0])) == (
        f"{DUPLICATED} fixed in 0.3.0 (present in 0.2.0)"
    )


def test_a_watched_issue_present_again_is_a_watch_change_point_that_says_back_in_it(
    tmp_path: Path,
) -> None:
    points = watch_points(switch_history(False, True), tmp_path)
    assert [describe(ChangePoint.from_json(p)) for p in points] == [
        f"{DUPLICATED} back in 0.2.0 (absent in 0.1.0)"
    ]


def test_a_release_whose_findings_cannot_decide_a_watched_issue_is_passed_over_not_a_change(
    tmp_path: Path,
) -> None:
    # Undecided between two releases with the bug: no change at all, as a surface's gap.
    assert watch_points(switch_history(True, None, True), tmp_path) == []
    # Undecided between the bug and its fix: the change spans it, from the last decided one.
    document = switch_history(True, None, False)
    document["releases"]["0.2.5"] = unavailable_entry("Error: Missing optional dependency")
    spanned = watch_points(document, tmp_path)
    assert [(p["last_same"], p["first_changed"]) for p in spanned] == [("0.1.0", "0.3.0")]


def test_the_history_s_watch_change_points_are_the_changes_the_watch_command_names(
    tmp_path: Path,
) -> None:
    document = switch_history(False, True, None, True, False, False, True)
    by_release = [(v, issue_states(e["findings"])) for v, e in document["releases"].items()]
    named = [
        (c.issue, c.previous, c.version, c.before.value, c.after.value)
        for c in state_changes(by_release)
    ]
    recorded = [
        (p["key"], p["last_same"], p["first_changed"], p["before"], p["after"])
        for p in watch_points(document, tmp_path)
    ]
    assert recorded == named and len(named) == 3


def test_a_history_without_the_findings_the_watch_list_reads_has_no_watch_rows(
    tmp_path: Path,
) -> None:
    document = history(v0_1_0=entry("t", a="holds"), v0_2_0=entry("t", a="changed"))
    assert watch_points(document, tmp_path) == []
    assert not [row for row in rows(document) if row.startswith("watch: ")]
    assert "Watched upstream issues" not in render_html(document, "history.svg")


def test_the_grid_has_a_band_of_watched_issues_by_colour_and_symbol_with_a_bar_where_one_changed(
    tmp_path: Path,
) -> None:
    document = switch_history(True, None, False)
    save_history(tmp_path / "history.json", document)
    watch_rows = [f"watch: {w.issue}" for w in WATCHED]
    assert rows(document) == [SWITCH, *watch_rows]
    svg = render_svg(document)
    # Present, undecided (the why in its tooltip) and absent: each its symbol and colour.
    row = rows(document).index(f"watch: {DUPLICATED}")
    y = TOP + row * (CELL + GAP)
    drawn = [(LEFT + column * (CELL + GAP), state) for column, state in enumerate("●?○")]
    for x, symbol in drawn:
        assert f'<text x="{x + CELL / 2}" y="{y + CELL - 4}" text-anchor="middle"' in svg
        assert f'pointer-events="none">{symbol}</text>' in svg
    assert f"{DUPLICATED} on 0.2.0: bug undecided" in svg
    assert f"{SWITCH} is broken: the run recorded no step &#x27;turn-2&#x27;" in svg
    # The bar where it changed (0.3.0, after the undecided 0.2.0), and nowhere else.
    assert svg.count(f'y="{y - 1}" width="3"') == 1
    assert f'<rect x="{drawn[2][0] - 2}" y="{y - 1}" width="3"' in svg
    assert "fixed in 0.3.0 (present in 0.1.0)" in svg
    page = render_html(document, "history.svg")
    assert "<h2>Watched upstream issues: where a state changed (1)</h2>" in page
    assert f"<b>{DUPLICATED}</b></a> fixed in 0.3.0 (present in 0.1.0): Custom base" in page
    assert "watch changed" not in page
    assert ">●</span>bug present" in page and ">?</span>bug undecided" in page


def test_the_history_command_says_fixed_in_or_back_in_for_each_watched_issue(
    tmp_path: Path,
) -> None:
    shard = tmp_path / "history.json"
    shard.write_text(json.dumps(switch_history(False, True, False)))
    done = codex_probe("history", "merge", str(shard), "--out", str(tmp_path / "all"))
    assert done.returncode == 0, done.stderr
    assert (
        "change points of watched upstream issues (2):\n"
        f"  {DUPLICATED} back in 0.2.0 (absent in 0.1.0)\n"
        f"  {DUPLICATED} fixed in 0.3.0 (present in 0.2.0)\n"
    ) in done.stdout


def test_an_explored_default_that_flips_is_a_change_point_of_the_exploration_row(
    tmp_path: Path,
) -> None:
    document = history(**{v.replace(".", "_"): entry("t", a="holds") for v in ("0.1.0", "0.2.0")})
    key = "thread/start none minimal"
    for version, policy in (("0.1.0", '"on-request"'), ("0.2.0", '"never"')):
        found = {key: {"answer": {"$": "object", "approvalPolicy": policy}}}
        with_surface(tmp_path, document, version, exploration=found)
    save_history(tmp_path / "history.json", document)
    saved = json.loads((tmp_path / "history.json").read_text())
    assert [p for p in saved["change_points"] if p["kind"] == "surface"] == [
        {
            "kind": "surface",
            "key": f"exploration {key}",
            "first_changed": "0.2.0",
            "last_same": "0.1.0",
            "before": {"answer": {"approvalPolicy": '"on-request"'}},
            "after": {"answer": {"approvalPolicy": '"never"'}},
            "rule": "response-field-retyped",
            "severity": "ERR",
        }
    ]
    assert "1 key(s) changed: thread/start none minimal" in render_svg(document)
