"""`codex-probe gate`: one exit code per reason, as CI and a release gate read it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from codex_probe.cli import main as cli
from codex_probe.cli.commands import gate as gate_command
from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from tests.cli import codex_probe
from tests.reports.conftest import MakeVerdict, Spec, finding_entry

V = "0.171.0"
REQUIRED = [a.id for a in ASSUMPTIONS if a.required]
INFORMATIVE = [a.id for a in ASSUMPTIONS if not a.required]


def all_hold(**overrides: tuple[str, bool]) -> dict[str, tuple[str, bool]]:
    """Every registered assumption holding on one version, but for the overrides."""
    findings = {a.id: ("holds", a.required) for a in ASSUMPTIONS}
    findings.update({key.replace("_", "-"): value for key, value in overrides.items()})
    return findings


def gate(capsys: pytest.CaptureFixture[str], verdict: Path, *args: str) -> tuple[int, list[str]]:
    code = cli.main(["gate", "--verdict", str(verdict), "--no-run", *args])
    return code, capsys.readouterr().out.splitlines()


def baseline(tmp_path: Path, *entries: tuple[str, str, str]) -> Path:
    path = tmp_path / "baseline.toml"
    path.write_text(
        "".join(
            f'[[expected]]\ncodex = "{v}"\nid = "{a}"\nverdict = "{verdict}"\n'
            f'reason = "known since the 0.171.0 bump"\n'
            for v, a, verdict in entries
        )
    )
    return path


def test_exit_0_when_every_required_assumption_holds_and_an_informative_one_changed(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str]
) -> None:
    verdict = make_verdict({V: all_hold(resume_refresh_cold=("changed", False))})
    code, lines = gate(capsys, verdict, "--codex", V)
    assert code == 0
    assert lines[-1] == "gate: exit 0: every required assumption holds"
    assert any(
        "resume-refresh-cold (informative, spec 5.3): assumption changed upstream; "
        "informative, gated only with --strict" in line
        for line in lines
    )


def test_exit_1_when_a_required_assumption_changed_naming_it_and_how_to_reproduce(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str]
) -> None:
    verdict = make_verdict({V: all_hold(compaction_keeps_instructions=("changed", True))})
    code, lines = gate(capsys, verdict, "--codex", V)
    assert code == 1
    reason = next(line for line in lines if "compaction-keeps-instructions" in line)
    assert reason.startswith(f"[FAIL] codex {V}: compaction-keeps-instructions (required")
    assert reason.endswith(
        f"Reproduce with: codex-probe probe --codex {V} --only compaction-keeps-instructions"
    )
    assert lines[-1] == (
        "gate: exit 1: a required assumption changed upstream or a baseline entry is stale"
    )


def test_strict_fails_an_informative_change_too(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str]
) -> None:
    verdict = make_verdict({V: all_hold(resume_refresh_cold=("changed", False))})
    code, lines = gate(capsys, verdict, "--codex", V, "--strict")
    assert code == 1
    assert lines[-1].startswith("gate: exit 1: an assumption changed upstream (--strict)")


def test_exit_3_when_a_required_probe_could_not_give_a_verdict(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str]
) -> None:
    verdict = make_verdict({V: all_hold(error_steer_wrong_turn=("broken", True))})
    code, lines = gate(capsys, verdict, "--codex", V)
    assert code == 3
    assert any(line.startswith(f"[NO VERDICT] codex {V}: error-steer-wrong-turn") for line in lines)
    assert lines[-1] == "gate: exit 3: a probe could not give a verdict"


def test_an_informative_broken_probe_blocks_only_under_strict(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str]
) -> None:
    verdict = make_verdict({V: all_hold(legacy_thread_two_sources=("broken", False))})
    assert gate(capsys, verdict, "--codex", V)[0] == 0
    assert gate(capsys, verdict, "--codex", V, "--strict")[0] == 3


def test_exit_3_when_a_required_assumption_has_no_finding_for_a_requested_version(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str]
) -> None:
    findings = all_hold()
    del findings["start-empty-and-omitted"]
    code, lines = gate(capsys, make_verdict({V: findings}), "--codex", V)
    assert code == 3
    assert (
        f"[NO VERDICT] codex {V}: start-empty-and-omitted (required): no finding; "
        "the probe did not run" in lines
    )


def test_exit_3_when_a_requested_version_was_never_probed_and_no_run_is_given(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = gate(capsys, make_verdict({V: all_hold()}), "--codex", "0.120.0")
    assert code == 3
    assert "[NO VERDICT] codex 0.120.0: no findings for this version" in lines


def test_a_change_wins_over_a_missing_verdict(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str]
) -> None:
    verdict = make_verdict(
        {
            V: all_hold(compaction_keeps_instructions=("changed", True)),
            "0.120.0": all_hold(error_steer_wrong_turn=("broken", True)),
        }
    )
    assert gate(capsys, verdict)[0] == 1  # without --codex: every version of the file


def test_a_baselined_change_passes_and_says_why(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    verdict = make_verdict({V: all_hold(compaction_keeps_instructions=("changed", True))})
    accepted = baseline(tmp_path, (V, "compaction-keeps-instructions", "changed"))
    code, lines = gate(capsys, verdict, "--codex", V, "--baseline", str(accepted))
    assert code == 0
    assert (
        f"[note] codex {V}: compaction-keeps-instructions (required, spec 5.3): changed, "
        "accepted by the baseline: known since the 0.171.0 bump" in lines
    )


def test_a_baseline_entry_whose_assumption_holds_again_is_stale_and_fails(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    accepted = baseline(tmp_path, (V, "compaction-keeps-instructions", "changed"))
    code, lines = gate(
        capsys, make_verdict({V: all_hold()}), "--codex", V, "--baseline", str(accepted)
    )
    assert code == 1
    assert any(
        "compaction-keeps-instructions (required, spec 5.3): stale baseline entry: it "
        "expects changed, the probe says holds" in line
        for line in lines
    )


def test_a_baseline_entry_for_an_absent_assumption_is_stale_too(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    accepted = baseline(tmp_path, (V, "a-renamed-assumption", "changed"))
    code, lines = gate(
        capsys, make_verdict({V: all_hold()}), "--codex", V, "--baseline", str(accepted)
    )
    assert code == 1
    assert any(
        f"[FAIL] codex {V}: a-renamed-assumption: stale baseline entry: no finding" in line
        for line in lines
    )


def test_baseline_entries_of_versions_not_judged_are_left_alone(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    accepted = baseline(tmp_path, ("0.120.0", "compaction-keeps-instructions", "changed"))
    assert (
        gate(capsys, make_verdict({V: all_hold()}), "--codex", V, "--baseline", str(accepted))[0]
        == 0
    )


def test_a_baselined_broken_probe_that_now_changed_is_stale_and_also_a_change(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    verdict = make_verdict({V: all_hold(error_steer_wrong_turn=("changed", True))})
    accepted = baseline(tmp_path, (V, "error-steer-wrong-turn", "broken"))
    code, lines = gate(capsys, verdict, "--codex", V, "--baseline", str(accepted))
    assert code == 1
    reasons = [line for line in lines if "error-steer-wrong-turn" in line]
    assert len(reasons) == 2 and "stale baseline entry" in reasons[0]
    assert "assumption changed upstream" in reasons[1]


def test_the_fake_diverging_from_real_is_reported_but_never_gates(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str]
) -> None:
    verdict = make_verdict({V: all_hold(fake_fidelity_start=("changed", False))})
    code, lines = gate(capsys, verdict, "--codex", V, "--strict")
    assert code == 0
    assert any(
        "fake-fidelity-start" in line and "fake diverges from real" in line for line in lines
    )


@pytest.mark.parametrize(
    ("setup", "complaint"),
    [
        ("broken-baseline", "not TOML"),
        ("unreadable-verdict", "not JSON"),
        ("verdict-of-another-shape", "verdict: 'ok' is not one of"),
    ],
)
def test_exit_2_on_a_file_the_gate_cannot_read(
    make_verdict: MakeVerdict,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    setup: str,
    complaint: str,
) -> None:
    verdict = make_verdict({V: all_hold()})
    args = ["--codex", V]
    if setup == "broken-baseline":
        (tmp_path / "b.toml").write_text("[[expected]\n")
        args += ["--baseline", str(tmp_path / "b.toml")]
    elif setup == "unreadable-verdict":
        verdict.write_text("{")
    else:
        entry = {"verdict": "ok", "required": True}
        verdict.write_text(json.dumps({"versions": {V: {"x": entry}}}))
    code = cli.main(["gate", "--verdict", str(verdict), "--no-run", *args])
    captured = capsys.readouterr()
    assert code == 2
    assert complaint in captured.err
    assert captured.out.splitlines()[-1] == "gate: exit 2: usage error"


def test_an_unknown_option_is_a_usage_error_with_exit_2() -> None:
    with pytest.raises(SystemExit) as caught:
        cli.main(["gate", "--stricter"])
    assert caught.value.code == 2


def test_a_version_without_a_verdict_is_probed_first_into_the_verdict_folder(
    make_verdict: MakeVerdict,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    verdict = make_verdict({V: all_hold()})
    commands: list[list[str]] = []

    def probe_run(command: Sequence[str], *, timeout: float) -> int:
        commands.append(list(command))
        spec: Spec = {"0.120.0": all_hold(), V: all_hold()}
        document = {
            "versions": {
                v: {a: finding_entry(v, a, *vr) for a, vr in f.items()} for v, f in spec.items()
            }
        }
        verdict.write_text(json.dumps(document))
        return 0

    monkeypatch.setattr(gate_command, "run_probes", probe_run)
    code = cli.main(["gate", "--verdict", str(verdict), "--codex", "0.120.0", "--codex", V])
    assert code == 0, capsys.readouterr().out
    assert len(commands) == 1
    assert commands[0][-7:] == [
        "probe",
        "--codex",
        "0.120.0",
        "--codex",
        V,
        "--out",
        str(verdict.parent),
    ]


def test_a_probe_run_that_leaves_no_verdict_is_exit_3(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(gate_command, "run_probes", lambda command, *, timeout: 3)
    code = cli.main(["gate", "--verdict", str(tmp_path / "verdict.json"), "--codex", V])
    assert code == 3
    assert capsys.readouterr().out.splitlines()[-1] == (
        "gate: exit 3: a probe could not give a verdict"
    )


def test_an_incomplete_verdict_is_no_verdict_even_if_all_it_holds_holds(
    make_verdict: MakeVerdict, capsys: pytest.CaptureFixture[str]
) -> None:
    verdict = make_verdict({V: all_hold()})
    document = json.loads(verdict.read_text())
    document["complete"] = False
    document["missing"] = [f"{V}:fake-fidelity-start"]
    verdict.write_text(json.dumps(document))
    code, lines = gate(capsys, verdict, "--codex", V)
    assert code == 3
    assert any(
        "the verdict file is incomplete (the probe run ended early): 1 finding(s) did not run: "
        "fake-fidelity-start" in line
        for line in lines
    )


def test_gate_json_is_its_decision_and_every_reason(make_verdict: MakeVerdict) -> None:
    verdict = make_verdict({V: all_hold(compaction_keeps_instructions=("changed", True))})
    done = codex_probe("gate", "--verdict", str(verdict), "--no-run", "--codex", V, "--json")
    assert done.returncode == 1, done.stderr
    answer = json.loads(done.stdout)
    assert (answer["decision"], answer["exit_code"]) == ("fails", 1)
    failed = [r for r in answer["reasons"] if r["tag"] == "FAIL"]
    assert [r["version"] for r in failed] == [V]
    assert "compaction-keeps-instructions (required, spec 5.3)" in failed[0]["text"]
