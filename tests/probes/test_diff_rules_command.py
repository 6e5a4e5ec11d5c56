"""`codex-probe diff` by rule: --fail-on, --severity-levels, --aspect, --format, and
`codex-probe rules`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codex_probe.probes.domain.surface.file import write_surfaces
from codex_probe.probes.domain.surface.release import ASPECTS, Surface
from codex_probe.probes.domain.surface.rules import RULES
from tests.cli import codex_probe

START = "client request thread/start"
PARAMS = {"cwd": "string (required)", "approvalPolicy": "null|enum(never|on-failure)"}


def surface(version: str, **aspects: dict[str, Any]) -> Surface:
    return Surface(version, {a: dict(aspects.get(a, {})) for a in ASPECTS})


def schema(params: dict[str, str], **more: Any) -> dict[str, Any]:
    return {START: {"params": params, "result": {"thread": "object"}}, **more}


BASE = surface("1.0.0", schema=schema(PARAMS))
# 1.1.0 retires a request enum value; 1.2.0 (from 1.0.0) only adds.
RETIRED = surface("1.1.0", schema=schema({**PARAMS, "approvalPolicy": "null|enum(never)"}))
ADDS = surface(
    "1.2.0",
    schema=schema(
        {**PARAMS, "model": "null|string"},
        **{"client request thread/goal/set": {"params": None, "result": None}},
    ),
    notifications={"s t turn/start": ["turn/started"]},
)


@pytest.fixture
def stored(tmp_path: Path) -> Path:
    path = tmp_path / "surface.json"
    write_surfaces(path, {s.version: s for s in (BASE, RETIRED, ADDS)})
    return path


def diff(stored: Path, a: str, b: str, *more: str, **kw: Any) -> Any:
    return codex_probe("diff", "--from", a, "--to", b, "--surfaces", str(stored), *more, **kw)


def test_fail_on_err_exits_1_on_a_retired_request_enum_value_and_0_on_a_pair_that_adds(
    stored: Path,
) -> None:
    retired = diff(stored, "1.0.0", "1.1.0", "--fail-on", "ERR", "--json")
    assert retired.returncode == 1, retired.stderr
    change = json.loads(retired.stdout)["changes"][0]
    assert (change["rule"], change["severity"]) == ("request-enum-value-removed", "ERR")
    adds = diff(stored, "1.0.0", "1.2.0", "--fail-on", "ERR", "--json")
    assert adds.returncode == 0, adds.stderr
    assert {c["severity"] for c in json.loads(adds.stdout)["changes"]} == {"INFO"}
    # Without --fail-on, any change exits 1, as before.
    assert diff(stored, "1.0.0", "1.2.0").returncode == 1


def test_a_project_s_severity_levels_move_a_rule_across_fail_on(
    stored: Path, tmp_path: Path
) -> None:
    levels = tmp_path / "levels.txt"
    levels.write_text("request-enum-value-removed WARN  # we never persist it\n")
    done = diff(stored, "1.0.0", "1.1.0", "--fail-on", "ERR", "--severity-levels", str(levels))
    assert done.returncode == 0, done.stdout
    assert "WARN request-enum-value-removed: params.approvalPolicy: on-failure -> (none)" in (
        done.stdout
    )


def test_a_severity_levels_file_that_is_not_one_is_one_line_and_exit_2(
    stored: Path, tmp_path: Path
) -> None:
    levels = tmp_path / "levels.txt"
    levels.write_text("no-such-rule ERR\n")
    done = diff(stored, "1.0.0", "1.1.0", "--severity-levels", str(levels))
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"codex-probe diff: {levels}:1: unknown rule 'no-such-rule' "
        "(`codex-probe rules` lists them)"
    )
    missing = diff(stored, "1.0.0", "1.1.0", "--severity-levels", str(tmp_path / "none"))
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1
    assert "cannot be read" in missing.stderr


def test_aspect_keeps_only_the_changes_of_that_aspect(stored: Path) -> None:
    done = diff(stored, "1.0.0", "1.2.0", "--aspect", "notifications", "--json")
    changes = json.loads(done.stdout)["changes"]
    assert [c["aspect"] for c in changes] == ["notifications"]
    assert changes[0]["rule"] == "notification-now-sent"
    schema_only = diff(stored, "1.0.0", "1.1.0", "--aspect", "notifications")
    assert schema_only.returncode == 0  # the retired value is in the schema aspect


def test_err_changes_are_listed_in_full_however_many(tmp_path: Path) -> None:
    keys = [f"client request m/{n:02}" for n in range(40)]
    before = surface("1.0.0", schema={k: {"params": None, "result": None} for k in keys})
    path = tmp_path / "surface.json"
    write_surfaces(path, {"1.0.0": before, "2.0.0": surface("2.0.0")})
    done = codex_probe("diff", "--from", "1.0.0", "--to", "2.0.0", "--surfaces", str(path))
    assert done.returncode == 1
    for key in keys:
        assert key in done.stdout
    assert "more" not in done.stdout


def test_markdown_is_a_table_of_every_breaking_rule(stored: Path) -> None:
    done = diff(stored, "1.0.0", "1.1.0", "--format", "markdown")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0].startswith("## codex-cli 1.0.0 -> 1.1.0: 1 surface difference(s): 1 ERR")
    assert (
        "| `request-enum-value-removed` | `schema client request thread/start` "
        "`params.approvalPolicy` | on-failure → (none) |"
    ) in lines


def test_github_annotates_each_breaking_rule_and_appends_the_job_summary(
    stored: Path, tmp_path: Path
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    env = {"PATH": "/usr/bin:/bin", "GITHUB_STEP_SUMMARY": str(summary)}
    done = diff(stored, "1.0.0", "1.1.0", "--format", "github", env=env)
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[0] == (
        "::error title=codex-cli 1.0.0 -> 1.1.0%3A request-enum-value-removed::"
        "schema client request thread/start: request-enum-value-removed: "
        "params.approvalPolicy: on-failure -> (none)"
    )
    written = summary.read_text()
    assert written.startswith("earlier step\n## codex-cli 1.0.0 -> 1.1.0")
    assert "`request-enum-value-removed`" in written


def test_rules_lists_every_rule_with_its_severity_direction_and_reason(tmp_path: Path) -> None:
    done = codex_probe("rules", "--json")
    assert done.returncode == 0
    listed = json.loads(done.stdout)
    assert [entry["id"] for entry in listed] == [rule.id for rule in RULES]
    assert {"id", "severity", "direction", "reason"} == set(listed[0])
    levels = tmp_path / "levels.txt"
    levels.write_text("response-enum-value-added ERR\n")
    text = codex_probe("rules", "--severity-levels", str(levels))
    line = next(x for x in text.stdout.splitlines() if x.startswith("response-enum-value-added"))
    assert " ERR * " in line and f"* set by {levels}" in text.stdout
