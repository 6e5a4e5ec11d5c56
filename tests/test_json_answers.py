"""`--json` wherever a command answers something: one JSON object on stdout, what the
command says on the way on stderr, the exit code unchanged. The cheap commands are run
here (gate's in tests/reports/test_gate.py); install, schema, diff, learn, bisect and
can-i-upgrade have theirs beside their other tests, and every command's parser is checked
for the option in test_command_help."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codex_probe.cli.commands.findings import every_finding
from codex_probe.cli.commands.invocation import invocation
from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.runner.events import ScenarioFinished, ScenarioStarted
from codex_probe.probes.runner.scenarios import SCENARIOS
from codex_probe.reporting.probe_progress import ProbeProgress
from tests.cli import codex_probe
from tests.site.recorded import write_history

V = "0.171.0"


def test_site_json_is_its_folder_pages_and_weight(tmp_path: Path) -> None:
    history = write_history(tmp_path / "history")
    done = codex_probe("site", "--history", str(history), "--out", str(tmp_path / "s"), "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["out"] == str(tmp_path / "s")
    assert 0 < answer["index_bytes"] <= answer["index_budget_bytes"]
    assert answer["releases"] == 3 and answer["screenshot"] is None


def test_history_merge_json_lists_the_releases_and_the_change_points(tmp_path: Path) -> None:
    history = write_history(tmp_path / "history")
    out = tmp_path / "merged"
    done = codex_probe(
        "history", "merge", str(history / "history.json"), "--out", str(out), "--json"
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["history"] == str(out / "history.json") and answer["missing"] == []
    assert {p["kind"] for p in answer["change_points"]} >= {"verdict"}
    assert done.stderr.startswith("merged 1 histories")


def test_probe_json_on_the_fake_says_where_the_verdict_is_and_each_verdict(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    done = codex_probe(
        "probe", "--backend", "fake", "--only", "start-applies-instructions", "--out", str(out),
        "--json", timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(done.stdout)
    assert answer["verdict"] == str(out / "verdict.json") and answer["complete"] is True
    assert answer["versions"] == {V: {"start-applies-instructions": "holds"}}
    assert "start-applies-instructions" in done.stderr  # the table went to stderr


def test_findings_lists_every_id_and_what_takes_it() -> None:
    done = codex_probe("findings", "--json")
    assert done.returncode == 0, done.stderr
    found = {f["id"]: f for f in json.loads(done.stdout)["findings"]}
    assert set(found) == {a.id for a in ASSUMPTIONS} | {f"fake-fidelity-{s}" for s in SCENARIOS}
    assert found["start-applies-instructions"]["takes"] == ["probe --only", "bisect", "repro"]
    assert found["fake-fidelity-start"]["takes"] == ["probe --only"]
    table = codex_probe("findings", "--kind", "fidelity").stdout
    assert "fake-fidelity-start" in table and "start-applies-instructions" not in table
    assert len(every_finding()) == len(found)


def test_a_hint_names_codex_probe_as_the_shell_finds_it(tmp_path: Path) -> None:
    venv_bin = tmp_path / ".nox" / "probe" / "bin"
    venv_bin.mkdir(parents=True)
    script = venv_bin / "codex-probe"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        # After ./nox -s probe: the session's venv is not on PATH, so its path is the name.
        assert invocation(str(script), path="/usr/bin", env={}) == ".nox/probe/bin/codex-probe"
        # Installed where PATH leads: the bare name.
        assert invocation(str(script), path=str(venv_bin), env={}) == "codex-probe"
        # Inside the nox session, PATH leads there too, but it is the session's PATH.
        session = {"NOX_CURRENT_SESSION": "probe"}
        assert invocation(str(script), path=str(venv_bin), env=session) == (
            ".nox/probe/bin/codex-probe"
        )
    assert invocation("/somewhere/python-script.py", path="/usr/bin").endswith(
        " -m codex_probe.cli"
    )


class Log:
    """A stream that is not a terminal, as a CI log is."""

    def __init__(self) -> None:
        self.text = ""

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def test_in_a_log_the_probe_says_how_far_it_is_and_how_long_the_release_took() -> None:
    log = Log()
    progress = ProbeProgress(log, heartbeat=0.0)  # type: ignore[arg-type]
    progress.start(V, 4)
    progress.on_event(ScenarioStarted(V, "real", "start"))
    progress.on_event(ScenarioStarted(V, "fake", "start"))
    assert log.lines == []
    progress.on_event(ScenarioFinished(V, "real", "start", outcome=None))  # type: ignore[arg-type]
    assert log.lines == [
        f"codex-cli {V}: 1 scenario run(s) done (real 1) so far; running: fake start"
    ]
    progress.finish()
    assert log.lines[-1].startswith(f"codex-cli {V}: 1 scenario run(s) done (real 1) in ")
