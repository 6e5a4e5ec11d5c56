"""`codex-probe schema-diff 0.120.0 0.171.0` on the schemas the real binaries generate."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codex_probe.harness.codex.install import install
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION, SPEC_CODEX_VERSION

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def both_installed() -> None:
    for version in (SPEC_CODEX_VERSION, DEFAULT_CODEX_VERSION):
        ensure_schema(install(version))


def schema_diff(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "codex_probe.cli",
            "schema-diff",
            "--from",
            SPEC_CODEX_VERSION,
            "--to",
            DEFAULT_CODEX_VERSION,
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.usefixtures("both_installed")
def test_text_names_what_changed_in_the_methods_the_spec_relies_on() -> None:
    text = schema_diff().stdout
    driver_part, rest = text.split("Everything else")
    for line in (
        "thread/start (client request): changed",
        "      + threadSource: null|string",
        "      ~ serviceTier: null|enum(fast|flex) -> null|string",
        "thread/resume (client request): changed",
        "      + excludeTurns: boolean",
        "turn/steer (client request): changed",
        "thread/compact/start (client request): unchanged",
        "thread/rollback (client request): REMOVED in 0.171.0",
    ):
        assert line in driver_part, line
    assert "thread/revert" in rest  # rollback's successor shows up among the new methods


@pytest.mark.usefixtures("both_installed")
def test_json_and_allure_results_carry_the_same_drift(tmp_path: Path) -> None:
    document = json.loads(schema_diff("--json", "--out", str(tmp_path)).stdout)
    start = next(d for d in document["driver_methods"] if d["method"] == "thread/start")
    added = {c["path"] for c in start["params"]["changes"] if c["change"] == "added"}
    assert "threadSource" in added
    assert "developerInstructions" not in {c["path"] for c in start["params"]["changes"]}
    statuses = {}
    for path in (tmp_path / "allure-results").glob("*-result.json"):
        result = json.loads(path.read_text())
        statuses[result["fullName"].rsplit(":", 1)[1]] = result["status"]
    assert statuses["thread/rollback"] == "failed"
    assert statuses["thread/compact/start"] == "passed"
    assert len(statuses) == len(document["driver_methods"])
