"""`codex-probe gate` and the protocol surface: reported always, gated with --surface."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from codex_probe.cli import main as cli
from codex_probe.cli.commands import gate as gate_command
from codex_probe.probes.domain.surface.file import write_surfaces
from codex_probe.probes.domain.surface.release import ASPECTS, Surface
from tests.reports.conftest import MakeVerdict
from tests.reports.test_gate import all_hold

BASE, NEW = "0.171.0", "0.172.0"
RESUME = {"$": "object", "thread": "object"}


def surface(version: str, missing: tuple[str, ...] = (), **aspects: dict[str, Any]) -> Surface:
    return Surface(version, {a: dict(aspects.get(a, {})) for a in ASPECTS}, missing)


def old_and_new(verdict: Path, **new_answers: Any) -> None:
    answers = {"errors resume thread/resume": RESUME, "errors A thread/list": {"$": "object"}}
    write_surfaces(
        verdict.parent / "surface.json",
        {
            BASE: surface(BASE, answers=answers),
            NEW: surface(NEW, answers={**answers, **new_answers}),
        },
    )


def gate(capsys: pytest.CaptureFixture[str], verdict: Path, *args: str) -> tuple[int, list[str]]:
    code = cli.main(["gate", "--verdict", str(verdict), "--no-run", "--codex", NEW, *args])
    return code, capsys.readouterr().out.splitlines()


def accepting(tmp_path: Path, key: str) -> Path:
    path = tmp_path / "baseline.toml"
    path.write_text(
        f'[[expected]]\ncodex = "{NEW}"\nkind = "surface"\nid = "{key}"\n'
        'reason = "the driver reads none of the new field"\n'
    )
    return path


CHANGED_RESUME = {"errors resume thread/resume": {**RESUME, "thread.fresh": "boolean"}}


def test_without_surface_a_change_the_driver_would_feel_is_reported_and_not_gated(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str]
) -> None:
    verdict = make_verdict({NEW: all_hold()})
    old_and_new(verdict, **CHANGED_RESUME)
    code, lines = gate(capsys, verdict)
    assert code == 0
    note = next(line for line in lines if "answers errors resume thread/resume" in line)
    assert note.startswith(f"[note] codex {NEW}: surface answers errors resume thread/resume: ")
    assert "(gated only with --surface): + thread.fresh: boolean" in note
    assert f"surface against {BASE}: 1 change(s), 1 the driver would feel" in "\n".join(lines)


def test_with_surface_a_change_the_driver_would_feel_fails_with_the_command_to_see_it(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str]
) -> None:
    verdict = make_verdict({NEW: all_hold()})
    old_and_new(verdict, **CHANGED_RESUME)
    code, lines = gate(capsys, verdict, "--surface")
    assert code == 1
    failed = next(line for line in lines if line.startswith("[FAIL]"))
    assert failed.endswith(f"Reproduce with: codex-probe diff --from {BASE} --to {NEW}")
    assert lines[-1] == (
        "gate: exit 1: a required assumption or a surface the driver touches changed upstream, "
        "or a baseline entry is stale"
    )


def test_a_change_the_driver_does_not_touch_never_fails(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str]
) -> None:
    verdict = make_verdict({NEW: all_hold()})
    old_and_new(verdict, **{"errors A thread/list": {"$": "array"}})
    code, lines = gate(capsys, verdict, "--surface")
    assert code == 0
    assert f"surface against {BASE}: 1 change(s), 0 the driver would feel, 1 other(s)" in (
        "\n".join(lines)
    )


def test_a_surface_change_the_baseline_accepts_passes_and_says_why(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    verdict = make_verdict({NEW: all_hold()})
    old_and_new(verdict, **CHANGED_RESUME)
    baseline = accepting(tmp_path, "answers errors resume thread/resume")
    code, lines = gate(capsys, verdict, "--surface", "--baseline", str(baseline))
    assert code == 0
    assert any(
        "changed, accepted by the baseline: the driver reads none of the new field" in line
        for line in lines
    )


def test_a_surface_entry_that_no_longer_matches_is_stale_and_fails_under_surface(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    verdict = make_verdict({NEW: all_hold()})
    old_and_new(verdict)
    baseline = accepting(tmp_path, "answers errors resume thread/resume")
    code, lines = gate(capsys, verdict, "--surface", "--baseline", str(baseline))
    assert code == 1
    assert any("stale baseline entry: the surface no longer differs there" in x for x in lines)
    assert gate(capsys, verdict, "--baseline", str(baseline))[0] == 0


def test_with_surface_a_version_without_a_surface_is_no_verdict(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str]
) -> None:
    verdict = make_verdict({NEW: all_hold()})
    write_surfaces(verdict.parent / "surface.json", {BASE: surface(BASE)})
    code, lines = gate(capsys, verdict, "--surface")
    assert code == 3
    assert any(f"surface not compared with {BASE}: " in line for line in lines)
    assert gate(capsys, verdict)[0] == 0


def test_a_missing_base_surface_is_probed_into_the_surface_file_by_diff(
    make_verdict: MakeVerdict,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    verdict = make_verdict({NEW: all_hold()})
    file = verdict.parent / "surface.json"
    write_surfaces(file, {NEW: surface(NEW)})
    commands: list[list[str]] = []

    def diff_run(command: Sequence[str], *, timeout: float) -> int:
        commands.append(list(command))
        write_surfaces(file, {NEW: surface(NEW), BASE: surface(BASE)})
        return 0

    monkeypatch.setattr(gate_command, "run_probes", diff_run)
    code = cli.main(["gate", "--verdict", str(verdict), "--codex", NEW, "--surface"])
    assert code == 0, capsys.readouterr().out
    assert [c[-7:] for c in commands] == [
        ["diff", "--from", BASE, "--to", NEW, "--surfaces", str(file)]
    ]


def test_each_surface_line_names_its_rule_and_every_err_change_is_told_even_ungated(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str]
) -> None:
    verdict = make_verdict({NEW: all_hold()})
    old_and_new(verdict, **{"errors A thread/list": {"$": "null"}})  # not the driver's
    code, lines = gate(capsys, verdict)
    assert code == 0
    note = next(line for line in lines if "answers errors A thread/list" in line)
    assert note.startswith(
        f"[note] codex {NEW}: surface answers errors A thread/list: "
        "ERR response-field-now-nullable: changed since"
    )
    assert "(gated only with --surface-fail-on ERR)" in note
    assert "1 other(s) not gated; 1 ERR, 0 WARN, 0 INFO" in "\n".join(lines)


def test_surface_fail_on_err_fails_on_an_err_change_whoever_feels_it_and_passes_an_addition(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    verdict = make_verdict({NEW: all_hold()})
    old_and_new(verdict, **{"errors A thread/list": {"$": "null"}})
    code, lines = gate(capsys, verdict, "--surface-fail-on", "ERR")
    assert code == 1
    assert any(x.startswith("[FAIL]") and "response-field-now-nullable" in x for x in lines)
    levels = tmp_path / "levels.txt"
    levels.write_text("response-field-now-nullable WARN\n")
    lowered = gate(capsys, verdict, "--surface-fail-on", "ERR", "--severity-levels", str(levels))
    assert lowered[0] == 0
    old_and_new(verdict, **CHANGED_RESUME)  # a field added, which the driver would feel
    assert gate(capsys, verdict, "--surface-fail-on", "ERR")[0] == 0


def test_an_explored_default_of_a_method_the_driver_sends_that_flips_fails_the_surface_gate(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    key = "thread/start none minimal"
    before = {key: {"answer": {"$": "object", "approvalPolicy": '"on-request"'}}}
    after = {key: {"answer": {"$": "object", "approvalPolicy": '"never"'}}}
    verdict = make_verdict({NEW: all_hold()})
    write_surfaces(
        verdict.parent / "surface.json",
        {BASE: surface(BASE, exploration=before), NEW: surface(NEW, exploration=after)},
    )
    code, lines = gate(capsys, verdict, "--surface")
    assert code == 1
    failed = next(line for line in lines if line.startswith("[FAIL]"))
    assert f"surface exploration {key}: ERR response-field-retyped: changed since {BASE}" in failed
    accepted = accepting(tmp_path, f"exploration {key}")
    code, _ = gate(capsys, verdict, "--surface", "--baseline", str(accepted))
    assert code == 0
