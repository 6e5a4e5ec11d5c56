from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from codex_probe.probes.domain.findings import Fidelity, Finding, Verdict, reproduce
from codex_probe.reporting.finding_results import write_finding_result
from tests.once import made_once

DATA = Path(__file__).parent / "data"
# (verdict, required) per version and assumption id: the shape every gate test starts from.
Spec = dict[str, dict[str, tuple[str, bool]]]
MakeVerdict = Callable[[Spec], Path]


def finding_entry(version: str, assumption: str, verdict: str, required: bool) -> dict[str, Any]:
    return {
        "verdict": verdict,
        "required": required,
        "spec_section": "5.3",
        "statement": f"the statement of {assumption}",
        "observed": {"seen": verdict == "holds"},
        "expected": {"seen": True},
        "evidence": [] if verdict == "holds" else [f"{assumption}: evidence line"],
        "reproduce": f"codex-probe probe --codex {version} --only {assumption}",
        "fidelity": None,
    }


@pytest.fixture
def make_verdict(tmp_path: Path) -> MakeVerdict:
    """Write a verdict.json (under tmp_path/reports/) holding exactly the given findings."""

    def make(spec: Spec) -> Path:
        path = tmp_path / "reports" / "verdict.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        versions = {
            version: {a: finding_entry(version, a, v, r) for a, (v, r) in findings.items()}
            for version, findings in spec.items()
        }
        document = {
            "generated_at": "2026-12-01T00:00:00Z",
            "tool": "codex-probe 0.1.0",
            "versions": versions,
        }
        path.write_text(json.dumps(document))
        return path

    return make


def probe_findings() -> list[Finding]:
    """Six findings of every kind a probe run writes: holds, changed upstream (required and
    informative), broken by the harness (a refusal, a timeout), the fake diverging from the
    real codex-cli."""

    def made(
        finding_id: str, section: str, version: str, required: bool, verdict: Verdict, summary: str
    ) -> Finding:
        return Finding(
            finding_id,
            version,
            verdict,
            required,
            section,
            f"the statement of {finding_id}",
            {"seen": verdict is Verdict.HOLDS},
            {"seen": True},
            [] if verdict is Verdict.HOLDS else [f"{finding_id}: evidence line"],
            reproduce(version, finding_id),
            summary=summary,
        )

    fidelity = made(
        "fake-fidelity-start",
        "fake",
        "0.171.0",
        False,
        Verdict.CHANGED,
        "fake diverges from real: scenario start on 0.171.0: "
        '{"values_changed": {"root[\'requests\'][0][\'instructions\']": "..."}}',
    )
    fidelity = replace(
        fidelity, fidelity=Fidelity(False, {"values_changed": {}}, {"source": "checked-in"})
    )
    return [
        made("start-applies-instructions", "5.2", "0.171.0", True, Verdict.HOLDS, ""),
        made(
            "compaction-keeps-instructions",
            "5.1",
            "0.171.0",
            True,
            Verdict.CHANGED,
            "assumption changed upstream: compaction-keeps-instructions on 0.171.0: "
            "developer_seen_after: expected True, observed False",
        ),
        made(
            "error-steer-wrong-turn",
            "5.3",
            "0.120.0",
            True,
            Verdict.BROKEN,
            "harness broken: turn/steer got no answer within 30s on 0.120.0",
        ),
        fidelity,
        made(
            "resume-refresh-loaded",
            "5.3",
            "0.171.0",
            False,
            Verdict.CHANGED,
            "assumption changed upstream: resume-refresh-loaded on 0.171.0: "
            "new_base_seen: expected False, observed True",
        ),
        made(
            "resume-refresh-cold",
            "5.3",
            "0.120.0",
            False,
            Verdict.BROKEN,
            "harness broken: thread/resume (id 3) got no answer within 20.0s on 0.120.0",
        ),
    ]


@pytest.fixture(scope="session")
def probe_like_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Allure results a probe run writes for those findings (made once per test run; the
    tests copy them before they change anything)."""

    def make(work: Path) -> None:
        for finding in probe_findings():
            write_finding_result(work / "allure-results", finding, None, work)

    return made_once(tmp_path_factory, "probe-like", make) / "allure-results"
