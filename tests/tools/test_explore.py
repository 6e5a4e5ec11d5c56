"""`python -m tools.explore` against the fake: the files one scenario writes."""

from __future__ import annotations

import json
from pathlib import Path

from codex_probe.fake_appserver.launcher import write_launcher
from codex_probe.harness.jsonrpc.transcript import read_transcript
from tools import explore


def test_the_errors_scenario_writes_its_transcript_requests_layout_stderr_and_config(
    tmp_path: Path,
) -> None:
    codex = write_launcher(tmp_path / "bin", profile="0.171.0")
    out = tmp_path / "out"

    assert explore.main(["--codex", str(codex), "--out", str(out), "--scenario", "errors"]) == 0

    scenario = out / "errors"
    assert sorted(p.name for p in scenario.iterdir()) == [
        "config.toml",
        "layout.txt",
        "requests.json",
        "stderr.1.txt",
        "stderr.2.txt",
        "transcript.jsonl",
    ]
    lines = [json.loads(line) for line in (scenario / "transcript.jsonl").read_text().splitlines()]
    # The scenario restarts codex once: every entry names its process, in order.
    processes = [line["process"] for line in lines]
    assert processes == sorted(processes)
    assert set(processes) == {1, 2}
    assert len(read_transcript(scenario / "transcript.jsonl")) == len(lines)
    # Error answers are recorded, not raised: the scenario went on past the first one.
    first_send, first_recv = lines[0], lines[1]
    assert first_send["msg"]["method"] == "thread/start"
    assert first_recv["msg"]["error"]["message"] == "Not initialized"
    error_messages = [line["msg"]["error"]["message"] for line in lines if "error" in line["msg"]]
    assert "no active turn to steer" in error_messages
    assert sum(m.startswith("thread not found") for m in error_messages) >= 3

    requests = json.loads((scenario / "requests.json").read_text())
    assert requests and all("abandoned" in r for r in requests)
    layout = (scenario / "layout.txt").read_text()
    assert layout.count("=== #") == len(requests)
    assert "BASE_MARKER_ERR" in layout and "ERR_TURN_1" in layout
    assert "base_url = " in (scenario / "config.toml").read_text()
