"""Reading verdict.json: a file of another shape is refused, with where and why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codex_probe.probes.domain.verdict_file import VerdictFileError, load_verdict
from tests.reports.conftest import DATA, MakeVerdict


def test_the_fixture_verdict_reads_into_findings_per_version() -> None:
    report = load_verdict(DATA / "verdict.json")
    assert report.versions == ["0.120.0", "0.171.0"]
    finding = report.findings["0.171.0"]["compaction-keeps-instructions"]
    assert (finding.verdict, finding.required, finding.spec_section) == ("changed", True, "5.1")
    assert report.findings["0.171.0"]["start-applies-instructions"].fake_diverges


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"verdict": "passed"}, "verdict: 'passed' is not one of"),
        ({"required": "yes"}, "required: 'yes' is not of type 'boolean'"),
        ({"evidence": "one line"}, "evidence: 'one line' is not of type 'array'"),
        ({"fidelity": {"diff": {}}}, "fidelity: {'diff': {}} is not valid under any"),
        ({"repro": "bundle"}, "repro: 'bundle' is not valid under any"),
        ({"repro": {"path": 3}}, "repro: {'path': 3} is not valid under any"),
    ],
)
def test_a_finding_of_another_shape_is_refused_naming_version_and_id(
    make_verdict: MakeVerdict, change: dict[str, object], complaint: str
) -> None:
    path = make_verdict({"0.171.0": {"start-applies-instructions": ("holds", True)}})
    document = json.loads(path.read_text())
    document["versions"]["0.171.0"]["start-applies-instructions"].update(change)
    path.write_text(json.dumps(document))
    with pytest.raises(VerdictFileError) as caught:
        load_verdict(path)
    where = '$.versions["0.171.0"]["start-applies-instructions"]'
    assert f"{path}: {where}.{complaint}" in str(caught.value)


def test_a_file_that_is_not_json_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "verdict.json"
    path.write_text("{not json")
    with pytest.raises(VerdictFileError, match="not JSON"):
        load_verdict(path)
