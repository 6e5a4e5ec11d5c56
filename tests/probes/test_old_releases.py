"""Releases older than the protocol the probes need: a method the release's own schema
lacks makes its findings unsupported, not broken; a release nothing can drive is said in
one line, with no profile learned from nothing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.probes.domain.findings import Verdict
from codex_probe.probes.releases.learn.profile import learning_into
from codex_probe.probes.runner import release_run as release_module
from codex_probe.probes.runner import selection as selection_module
from codex_probe.probes.runner.plan import RunPlan
from codex_probe.probes.runner.release_run import run_release
from codex_probe.probes.runner.selection import Selection, fidelity_id
from codex_probe.rig.backends import Backend, make_backend
from tests.cli import codex_probe

pytestmark = pytest.mark.real  # the fake reads its schema from the installed release


def real_is_fake_with(script: Path, rules: list[dict[str, Any]]) -> Any:
    """make_backend, but the 'real' codex is the fake under these fault rules."""
    script.write_text("".join(json.dumps(rule) + "\n" for rule in rules))

    def make(kind: str, version: str, **options: Any) -> Backend:
        if kind == "real":
            return make_backend("fake", version, script=script)
        return make_backend(kind, version, **options)

    return make


def test_a_scenario_refused_on_a_method_its_release_lacks_is_unsupported_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, default_codex: Installation
) -> None:
    refusal = {"action": "error", "code": -32600, "message": "unknown variant `thread/unsubscribe`"}
    make = real_is_fake_with(tmp_path / "s.jsonl", [{"method": "thread/unsubscribe", **refusal}])
    monkeypatch.setattr(selection_module, "make_backend", make)
    without = {"initialize", "thread/start", "turn/start", "thread/resume"}
    monkeypatch.setattr(release_module, "client_methods", lambda _: without)
    selection = Selection.of(["resume-refresh-unsubscribed"], fidelity=False)
    run = asyncio.run(
        run_release(
            RunPlan(DEFAULT_CODEX_VERSION, selection, learning=learning_into(tmp_path / "learned"))
        )
    )
    finding = run.findings["resume-refresh-unsubscribed"]
    assert finding.verdict is Verdict.UNSUPPORTED
    assert f"codex-cli {DEFAULT_CODEX_VERSION} has no thread/unsubscribe" in finding.evidence[0]
    assert finding.summary.startswith("unsupported by this release:")


def test_a_refusal_of_a_method_the_release_has_stays_broken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, default_codex: Installation
) -> None:
    refusal = {"action": "error", "code": -32600, "message": "unknown variant `thread/unsubscribe`"}
    make = real_is_fake_with(tmp_path / "s.jsonl", [{"method": "thread/unsubscribe", **refusal}])
    monkeypatch.setattr(selection_module, "make_backend", make)
    selection = Selection.of(["resume-refresh-unsubscribed"], fidelity=False)
    run = asyncio.run(
        run_release(
            RunPlan(DEFAULT_CODEX_VERSION, selection, learning=learning_into(tmp_path / "learned"))
        )
    )
    assert run.findings["resume-refresh-unsubscribed"].verdict is Verdict.BROKEN


def test_a_release_that_exits_before_initialize_everywhere_learns_no_profile_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, default_codex: Installation
) -> None:
    crash = {"method": "initialize", "action": "crash", "exit_code": 2}
    make = real_is_fake_with(tmp_path / "s.jsonl", [crash])
    monkeypatch.setattr(selection_module, "make_backend", make)
    selection = Selection.of(["start-applies-instructions", fidelity_id("start")])
    run = asyncio.run(
        run_release(
            RunPlan(
                DEFAULT_CODEX_VERSION,
                selection,
                learning=learning_into(tmp_path / "learned", always=True),
            )
        )
    )
    assert run.undrivable is not None and "before answering initialize" in run.undrivable
    assert run.learned is None and not (tmp_path / "learned").exists()
    assert {f.verdict for f in run.findings.values()} == {Verdict.BROKEN}


def test_probe_says_in_one_line_on_stderr_why_it_cannot_drive_a_release_and_exits_3(
    tmp_path: Path, default_codex: Installation
) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"method": "initialize", "action": "crash", "exit_code": 2}))
    out = tmp_path / "out"
    done = codex_probe(
        "probe", "--backend", "fake", "--fake-script", str(script), "--out", str(out),
        "--only", "start-applies-instructions", timeout=300,
    )  # fmt: skip
    assert done.returncode == 3, done.stdout[-2000:] + done.stderr[-2000:]
    said = done.stderr.strip().splitlines()
    assert len(said) == 1 and "the probes cannot drive this release" in said[0], done.stderr
