"""Categories: failures sorted the way the probes report them, and the files beside them."""

from __future__ import annotations

import json
import re
from pathlib import Path

from codex_probe.reporting.categories import (
    CATEGORIES,
    categories_json,
    category_of,
    ci_executor,
    write_results_metadata,
)

EXPECTED_CATEGORY = {
    "the statement of start-applies-instructions": None,
    "the statement of compaction-keeps-instructions": "changed upstream: gated (required)",
    # Informative: what codex does and the gate lets through: no failure, and not passed.
    "the statement of resume-refresh-loaded": "changed upstream: informative (not gated)",
    "the statement of error-steer-wrong-turn": "harness broken",
    "the statement of fake-fidelity-start": "fake diverges from real",
    "the statement of resume-refresh-cold": "harness broken",
}


def test_each_finding_falls_into_its_category_as_a_probe_run_writes_it(
    probe_like_results: Path,
) -> None:
    found = {}
    for path in probe_like_results.glob("*-result.json"):
        result = json.loads(path.read_text())
        message = result.get("statusDetails", {}).get("message", "")
        found[result["name"]] = category_of(result["status"], message)
    assert found == EXPECTED_CATEGORY


def test_a_failure_with_none_of_the_prefixes_is_in_no_category_of_ours() -> None:
    assert category_of("failed", "AssertionError: assert 1 == 2") is None
    # ...while a prefix in the middle of a message does not count.
    assert category_of("failed", "Failed: see harness broken: no") is None


def test_categories_json_holds_every_rule_in_the_allure_2_format() -> None:
    rules = categories_json()
    assert [rule["name"] for rule in rules] == [c.name for c in CATEGORIES]
    assert {rule["name"] for rule in rules} == {
        "changed upstream: gated (required)",
        "changed upstream: informative (not gated)",
        "harness broken",
        "fake diverges from real",
        "schema drift between versions",
    }
    for rule in rules:
        assert set(rule) == {"name", "matchedStatuses", "messageRegex"}
        re.compile(rule["messageRegex"])  # also a valid JavaScript and Java pattern: no (?s)
        assert "(?" not in rule["messageRegex"].replace("(?:", "")


def test_metadata_files_land_beside_the_results(tmp_path: Path) -> None:
    write_results_metadata(
        tmp_path, {"codex.versions": "0.120.0, 0.171.0", "note": "a\\b\nc"}, executor={}
    )
    assert json.loads((tmp_path / "categories.json").read_text()) == categories_json()
    assert (tmp_path / "environment.properties").read_text() == (
        "codex.versions=0.120.0, 0.171.0\nnote=a\\\\b\\nc\n"
    )
    assert not (tmp_path / "executor.json").exists()


def test_a_github_actions_run_is_named_with_a_link_back_to_it() -> None:
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_REPOSITORY": "o/codex-probe",
        "GITHUB_RUN_ID": "42",
        "GITHUB_WORKFLOW": "codex upgrade",
        "GITHUB_RUN_NUMBER": "7",
    }
    executor = ci_executor(env)
    assert executor["buildUrl"] == "https://github.com/o/codex-probe/actions/runs/42"
    assert executor["buildName"] == "codex upgrade #7"
    assert ci_executor({}) == {}
