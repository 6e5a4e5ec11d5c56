"""summary.md: what a person reads in a pull request."""

from __future__ import annotations

import json
from pathlib import Path

from codex_probe.probes.domain.verdict_file import load_verdict, parse_verdicts
from codex_probe.reporting.summary import MAX_VALUE_CHARS, render_summary
from tests.reports.conftest import DATA, MakeVerdict


def summary_of_fixture() -> str:
    return render_summary(load_verdict(DATA / "verdict.json"))


def test_table_has_a_row_per_assumption_and_a_column_per_version_in_version_order() -> None:
    lines = summary_of_fixture().splitlines()
    header = next(line for line in lines if line.startswith("| assumption"))
    assert header == "| assumption | spec | codex 0.120.0 | codex 0.171.0 |"
    assert "| `compaction-keeps-instructions` | 5.1 | ✅ holds | ❌ changed |" in lines
    assert "| `error-steer-wrong-turn` | 5.3 | ⚠️ broken | — no verdict |" in lines


def test_the_gate_s_decision_is_said_in_one_line_before_any_table() -> None:
    summary = summary_of_fixture()
    line = next(line for line in summary.splitlines() if line.startswith("**Gate:"))
    assert line.startswith("**Gate: fails** (exit 1: a required assumption changed upstream")
    assert summary.index(line) < summary.index("| assumption")


def test_a_verdict_whose_required_assumptions_hold_says_the_gate_passes(
    make_verdict: MakeVerdict,
) -> None:
    path = make_verdict({"0.171.0": {"resume-refresh-cold": ("changed", False)}})
    summary = render_summary(load_verdict(path))
    assert "**Gate: passes** (exit 0: every required assumption holds;" in summary


def test_required_rows_stand_apart_from_informative_ones_whose_changes_are_no_cross() -> None:
    summary = summary_of_fixture()
    required, informative = summary.split("## Informative assumptions (reported, not gated)")
    required = required.split("## Required assumptions (the gate judges these)")[1]
    informative = informative.split("## Changed or broken")[0]
    assert "`resume-refresh-cold`" not in required
    assert "`compaction-keeps-instructions`" not in informative
    assert "| `resume-refresh-cold` | 5.3 | — no verdict | 🔸 changed, not gated |" in informative
    assert "❌" not in informative


def test_rows_follow_the_registry_order_of_the_spec_not_the_alphabet() -> None:
    rows = [line for line in summary_of_fixture().splitlines() if line.startswith("| `")]
    order = [row.split("`")[1] for row in rows]
    assert order.index("start-applies-instructions") < order.index("compaction-keeps-instructions")


def test_each_changed_or_broken_finding_has_its_evidence_and_a_command_to_paste() -> None:
    summary = summary_of_fixture()
    changed = summary.split("### `compaction-keeps-instructions` on codex 0.171.0: changed")[1]
    changed = changed.split("###")[0]
    assert "Spec 5.1 (required)." in changed
    assert '- observed: `{"base_seen_after": true, "developer_seen_after": false}`' in changed
    assert "- developer_seen_after: expected True, observed False" in changed
    assert "    instructions: <base marker B-7f3a>" in changed  # multi-line evidence kept whole
    assert changed.rstrip().endswith(
        "Reproduce with: `codex-probe probe --codex 0.171.0 --only compaction-keeps-instructions`"
    )
    broken = summary.split("### `error-steer-wrong-turn` on codex 0.120.0: broken")[1]
    assert "- turn/steer (id 7) got no answer within 30.0s" in broken
    assert "Reproduce with: `codex-probe probe --codex 0.120.0 --only error-steer-wrong-turn`" in (
        broken
    )


def test_a_holding_assumption_gets_no_section_of_its_own() -> None:
    assert (
        "### `start-applies-instructions`"
        not in summary_of_fixture().split("## Fake diverges from real")[0]
    )


def test_counts_per_version_name_how_many_changes_are_required() -> None:
    summary = summary_of_fixture()
    assert "- codex 0.171.0: assumptions: 1 holds, 2 changed (1 required), 0 broken" in summary
    assert "- codex 0.120.0: assumptions: 2 holds, 0 changed, 1 broken (1 required)" in summary


def test_fake_versus_real_findings_have_their_own_table_and_their_diff() -> None:
    summary = summary_of_fixture()
    assumptions_table, rest = summary.split("## Changed or broken")
    assert "fake-fidelity-start" not in assumptions_table
    assert "| `fake-fidelity-start` | fake | — no verdict | ❌ differs |" in rest
    # A probe whose own fidelity check differs is marked in the assumptions table too.
    marked = "| `start-applies-instructions` | 5.2 | ✅ holds | ✅ holds · fake ≠ real |"
    assert marked in assumptions_table
    diverges = rest.split("## Fake diverges from real")[1]
    assert "\"root['requests'][0]['tools']\"" in diverges
    assert '"old_value": "developer"' in diverges


def test_an_observed_value_too_long_for_a_pull_request_is_cut_and_says_where_it_is_whole(
    make_verdict: MakeVerdict,
) -> None:
    path = make_verdict({"0.171.0": {"resume-refresh-cold": ("changed", False)}})
    document = json.loads(path.read_text())
    document["versions"]["0.171.0"]["resume-refresh-cold"]["observed"] = {"text": "x" * 5000}
    summary = render_summary(parse_verdicts(document))
    observed = next(line for line in summary.splitlines() if line.startswith("- observed:"))
    assert len(observed) < MAX_VALUE_CHARS + 100
    assert observed.endswith("…(cut; whole in verdict.json)`")


def test_a_verdict_without_versions_says_nothing_was_probed(tmp_path: Path) -> None:
    path = tmp_path / "verdict.json"
    path.write_text('{"generated_at": "now", "tool": "codex-probe 0.1.0", "versions": {}}')
    assert "nothing was probed" in render_summary(load_verdict(path))


def with_repro(repro: dict[str, object]) -> str:
    document = json.loads((DATA / "verdict.json").read_text())
    document["versions"]["0.171.0"]["resume-refresh-cold"]["repro"] = repro
    return render_summary(parse_verdicts(document))


def test_a_changed_finding_links_its_reproduction_bundle_and_the_command_that_runs_it() -> None:
    bundle = "repro/resume-refresh-cold-0.171.0"
    run = f"python3 {bundle}/reproduce.py --codex PATH_TO_CODEX"
    section = with_repro({"path": bundle, "run": run}).split(
        "### `resume-refresh-cold` on codex 0.171.0: changed"
    )[1]
    assert (
        f"Reproduction bundle (Python and the codex binary only): [{bundle}]({bundle}/README.md), "
        f"run with `{run}`"
    ) in section.split("###")[0]


def test_a_finding_without_a_bundle_says_why() -> None:
    section = with_repro({"path": None, "why": "its scenario did not run: npm failed"}).split(
        "### `resume-refresh-cold` on codex 0.171.0: changed"
    )[1]
    assert "No reproduction bundle: its scenario did not run: npm failed" in section
