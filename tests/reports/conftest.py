from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

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


@pytest.fixture(scope="session")
def probe_like_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real allure-pytest results of findings reported the way the probes report them
    (made once per test run; the tests copy them before they change anything)."""

    def make(work: Path) -> None:
        shutil.copy(DATA / "findings_as_tests.py", work / "findings_as_tests.py")
        (work / "pytest.ini").write_text("[pytest]\n")
        results = work / "allure-results"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "--rootdir",
                str(work),
                "-c",
                str(work / "pytest.ini"),
                "--alluredir",
                str(results),
                str(work / "findings_as_tests.py"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            cwd=work,
        )
        assert done.returncode == 1, done.stdout + done.stderr  # 1: some findings fail, as meant
        assert len(list(results.glob("*-result.json"))) == 5, done.stdout

    return made_once(tmp_path_factory, "probe-like", make) / "allure-results"
