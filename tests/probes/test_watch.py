"""The watch list: each known upstream bug decided per release by the findings that show
it, never a silent unknown, and the changes along a range named as fixed or back."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from codex_probe.probes.domain.assumptions import BY_ID
from codex_probe.probes.domain.findings import Finding, FindingFormatError, Verdict
from codex_probe.probes.domain.watch import (
    BY_ISSUE,
    WATCH_FINDINGS,
    WATCHED,
    State,
    issue_states,
    state_changes,
    upstream_of,
)


def entry(verdict: str, **observed: Any) -> dict[str, Any]:
    return {"verdict": verdict, "observed": observed, "summary": f"said {verdict}"}


def showing(present: bool) -> dict[str, dict[str, Any]]:
    """Finding entries in which every watched issue shows (or none does)."""
    entries: dict[str, dict[str, Any]] = {}
    for watched in WATCHED:
        for sign in watched.signs:
            values = dict(sign.values)
            if not present:  # the first value otherwise: the sign does not show
                key = next(iter(values))
                values[key] = "not what shows the bug"
            entries[sign.finding] = entry(
                "holds", **{**entries.get(sign.finding, {}).get("observed", {}), **values}
            )
    return entries


def test_each_watched_issue_names_its_upstream_thread_title_meaning_and_registry_findings() -> None:
    assert len(BY_ISSUE) == len(WATCHED)
    for watched in WATCHED:
        assert watched.issue.startswith("openai/codex#")
        assert watched.url == f"https://github.com/openai/codex/issues/{watched.number}"
        assert watched.title and watched.present_means.endswith(".")
        assert watched.present_means.count(". ") == 0, "one sentence"
        for sign in watched.signs:
            assert sign.finding in BY_ID
            assert set(sign.values) <= set(BY_ID[sign.finding].reads), sign.finding
    assert set(WATCH_FINDINGS) == {s.finding for w in WATCHED for s in w.signs}


def test_an_issue_is_present_when_a_sign_shows_and_absent_when_every_sign_was_judged_without() -> (
    None
):
    present = issue_states(showing(True))
    assert {state.state for state in present.values()} == {State.PRESENT}
    absent = issue_states(showing(False))
    assert {state.state for state in absent.values()} == {State.ABSENT}


def test_an_issue_whose_finding_broke_or_was_not_probed_is_broken_and_says_why() -> None:
    entries = showing(False)
    entries["fork-refresh"] = entry("broken")
    del entries["compaction-turn-completes"]
    states = issue_states(entries)
    assert states["openai/codex#19045"].state is State.BROKEN
    assert states["openai/codex#19045"].why == "fork-refresh is broken: said broken"
    assert states["openai/codex#28495"].state is State.BROKEN
    assert "not probed" in states["openai/codex#28495"].why
    assert states["openai/codex#28495"].findings == {"compaction-turn-completes": "missing"}


def test_one_sign_that_shows_makes_the_issue_present_even_if_another_broke() -> None:
    entries = showing(False)
    entries["resume-refresh-cold"] = entry("changed", new_developer_seen=False)
    entries["fork-refresh"] = entry("unsupported")
    assert issue_states(entries)["openai/codex#19045"].state is State.PRESENT


def test_a_judged_finding_carries_the_state_of_each_issue_it_decides_and_a_broken_one_none() -> (
    None
):
    shown = upstream_of(
        "model-switch-sends-base-once", "changed", {"base_in_model_switch_block": True}
    )
    assert shown == [{"issue": "openai/codex#41491", "state": "present"}]
    unshown = upstream_of("fork-refresh", "holds", {"new_developer_seen": True})
    assert unshown == [{"issue": "openai/codex#19045", "state": "absent"}]
    assert upstream_of("fork-refresh", "broken", {}) == []
    assert upstream_of("start-applies-instructions", "holds", {}) == []


def test_the_upstream_field_goes_to_verdict_json_and_back_and_a_malformed_one_is_refused() -> None:
    finding = Finding("fork-refresh", "0.171.0", Verdict.HOLDS, False, "5.3", "s", {}, {})
    assert "upstream" not in finding.to_json()
    finding = replace(finding, upstream=[{"issue": "openai/codex#19045", "state": "present"}])
    document = finding.to_json()
    assert document["upstream"] == finding.upstream
    assert (
        Finding.from_json(document, "0.171.0", "fork-refresh", "here").upstream == finding.upstream
    )
    document["upstream"] = [{"issue": "openai/codex#19045", "state": "unknown"}]
    with pytest.raises(FindingFormatError, match="'upstream' must be a list"):
        Finding.from_json(document, "0.171.0", "fork-refresh", "here")


def test_changes_along_a_range_say_fixed_in_and_back_in_and_pass_over_a_broken_release() -> None:
    present, absent = issue_states(showing(True)), issue_states(showing(False))
    broken = issue_states({})
    changes = state_changes(
        [("0.1.0", present), ("0.2.0", broken), ("0.3.0", absent), ("0.4.0", present)]
    )
    model_switch = [c.describe() for c in changes if c.issue == "openai/codex#41491"]
    assert model_switch == [
        "openai/codex#41491 fixed in 0.3.0 (present in 0.1.0)",
        "openai/codex#41491 back in 0.4.0 (absent in 0.3.0)",
    ]
    assert state_changes([("0.1.0", present), ("0.2.0", present)]) == []


def test_the_previous_release_is_the_plain_one_published_just_before_the_oldest_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from codex_probe.cli.commands import watch as command
    from codex_probe.harness.codex import npm

    published = ["0.149.0", "0.150.0-alpha.1", "0.149.2", "0.150.0", "0.171.0", "0.80.0"]
    monkeypatch.setattr(npm, "published_versions", lambda: published)
    assert command._previous(["0.171.0", "0.150.0"]) == ["0.149.2"]
    assert command._previous(["0.80.0"]) == []
