"""Capture the fake's wire templates from a transcript of the real codex-cli.

The fake answers with objects shaped exactly like the real server's (every field the
version's schema knows, in upstream's layout), so it copies one real example of each
and fills in the dynamic values at run time. Run on a transcript written by
`python -m probes.explore` (scenario `lifecycle`):

    python -m fake_appserver.profiles.capture_wire TRANSCRIPT.jsonl VERSION > wire-VERSION.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

# (template name, method whose response or notification holds it, how to take it)
RESPONSES = {
    "initialize": "initialize",
    "thread_start": "thread/start",
    "thread_resume": "thread/resume",
    "turn_start": "turn/start",
    "compact_start": "thread/compact/start",
    "unsubscribe": "thread/unsubscribe",
}


def capture(transcript: Path, version: str) -> dict[str, Any]:
    entries = [json.loads(line) for line in transcript.read_text().splitlines() if line.strip()]
    methods_by_id: dict[tuple[Any, Any], str] = {}
    templates: dict[str, Any] = {}
    for entry in entries:
        message = entry["msg"]
        key = (entry.get("process"), message.get("id"))
        if entry["dir"] == "send" and "method" in message and "id" in message:
            methods_by_id[key] = message["method"]
            continue
        if entry["dir"] != "recv":
            continue
        method = methods_by_id.get(key) if "result" in message else None
        for name, wanted in RESPONSES.items():
            if method == wanted and name not in templates:
                templates[name] = message["result"]
        note = message.get("method")
        params = message.get("params") or {}
        item = params.get("item") or {}
        if note == "item/completed" and item.get("type") in (
            "userMessage",
            "agentMessage",
            "contextCompaction",
        ):
            templates.setdefault(f"item_{item['type']}", item)
        if note in ("item/started", "item/completed"):
            templates.setdefault(f"{note.replace('/', '_')}_params", params)
        if note == "thread/status/changed":
            templates.setdefault(f"status_{params['status']['type']}", params["status"])
        if note in ("thread/tokenUsage/updated", "turn/completed", "turn/started"):
            templates.setdefault(note.replace("/", "_"), params)
        if note is not None:
            templates.setdefault("notifications_carry_emitted_at_ms", "emittedAtMs" in message)
    thread = templates["thread_start"]["thread"]
    templates["thread"] = thread
    return {
        "captured_from": f"codex-cli {version}",
        "source": str(transcript.name),
        "templates": templates,
    }


if __name__ == "__main__":
    json.dump(capture(Path(sys.argv[1]), sys.argv[2]), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
