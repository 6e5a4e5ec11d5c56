"""The probe bench's floor replays what the exploration sends too: its reading of a lane's
transcript must find each request, its answer and the turns it waited for, or the bench
breaks unseen (it runs outside the suite; the scenarios' dry run is tested with the
registry)."""

from __future__ import annotations

import runpy
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "probes.py"


def test_the_exploration_floor_reads_each_request_its_answer_and_the_turns_it_waited_for() -> None:
    from codex_probe.harness.jsonrpc.transcript import TranscriptEntry

    bench = runpy.run_path(str(BENCH), run_name="bench_probes")
    said = [
        ("send", {"id": 1, "method": "initialize", "params": {}}),
        ("recv", {"id": 1, "result": {"codexHome": "/tmp/codex-probe-x/home/codex_home"}}),
        ("send", {"id": 2, "method": "turn/start", "params": {"threadId": "t"}}),
        ("recv", {"id": 2, "result": {"turn": {"id": "u"}}}),
        ("recv", {"method": "turn/completed", "params": {"threadId": "t"}}),
        ("send", {"id": 3, "method": "explore/fence", "params": {}}),
    ]
    entries = [TranscriptEntry(direction, 0.0, message) for direction, message in said]  # type: ignore[arg-type]
    root, requests = bench["lane_requests"](entries)
    assert root == "/tmp/codex-probe-x"
    assert [(r.method, r.completions) for r in requests] == [
        ("initialize", 0),
        ("turn/start", 1),
        ("explore/fence", 0),
    ]
    assert requests[1].answer == {"turn": {"id": "u"}}
