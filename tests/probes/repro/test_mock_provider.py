"""The bundle's mock provider answers as codex-probe's wiretap does, event for event."""

from __future__ import annotations

import gzip
import json
import threading
import time
import urllib.request

from codex_probe.probes.releases.repro.script import mock_provider
from codex_probe.probes.releases.repro.script.mock_provider import MockProvider
from codex_probe.rig import wiretap


def test_its_answers_are_the_wiretaps_event_for_event() -> None:
    item = wiretap.assistant_message("msg_wiretap_4", "a streamed answer")
    for deltas, tokens in ((0, (0, 0)), (3, (12, 5))):
        reply = {"deltas": deltas, "input_tokens": tokens[0], "output_tokens": tokens[1]}
        ours = mock_provider.response_events(7, [item], reply)
        theirs = wiretap.response_events("resp_7", [item], *tokens, deltas)
        assert ours == theirs


def test_where_nothing_was_queued_it_answers_with_the_wiretaps_defaults() -> None:
    assert mock_provider.DEFAULT_REPLY_TEXT == wiretap.DEFAULT_REPLY_TEXT
    summary = mock_provider.COMPACTION_SUMMARY.format(index=3)
    assert summary == f"{wiretap.COMPACTION_SUMMARY_PREFIX} 3"


def test_it_keeps_a_gzipped_body_and_closing_cuts_a_held_reply_short() -> None:
    provider = MockProvider()
    provider.queue_reply({"step": "turn-1", "text": "held", "delay_s": 60.0})
    body = gzip.compress(json.dumps({"input": [{"type": "message"}]}).encode())
    request = urllib.request.Request(
        provider.base_url + "/responses",
        data=body,
        headers={"Content-Encoding": "gzip", "Content-Type": "application/json"},
    )
    answered: list[bytes] = []

    def ask() -> None:
        with urllib.request.urlopen(request, timeout=30) as response:
            answered.append(response.read())

    asker = threading.Thread(target=ask, daemon=True)
    asker.start()
    assert provider.wait_for(1, timeout=10)
    started = time.monotonic()
    provider.close()
    asker.join(timeout=10)
    assert time.monotonic() - started < 5
    assert provider.requests[0]["body"] == {"input": [{"type": "message"}]}
    assert b"response.completed" in answered[0] and b'"held"' in answered[0]


def test_a_scripted_reply_streams_as_the_wiretap_streams_it_item_for_item_and_end_for_end() -> None:
    from codex_probe.probes.releases.repro.record import reply_line
    from codex_probe.rig.replies import (
        End,
        FunctionCall,
        Hold,
        Message,
        Reasoning,
        Reply,
        exec_command,
        script_stream,
    )

    script = (
        Reasoning(("plan",), ("raw",), "SEALED"),
        Message("one", deltas=2),
        Hold(),
        exec_command("echo hi"),
        FunctionCall("codex_probe_no_such_tool", "{}", call_id="call_named"),
        Message("two"),
    )
    for end in End:
        reply = Reply(items=script, end=end, input_tokens=3, output_tokens=4)
        line = reply_line(reply)
        theirs = script_stream(reply, "resp_9", 5)
        items = mock_provider._items(line["items"], 5)
        ours = mock_provider.response_events(9, items, line)
        assert [e for e in ours if e["type"] != "hold"] == [
            e for e in theirs.steps if isinstance(e, dict)
        ], end
        assert sum(e["type"] == "hold" for e in ours) == 1
        assert (line.get("end") == "dropped") is theirs.drop
