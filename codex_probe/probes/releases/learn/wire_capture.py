"""The fake's wire templates, copied from the real transcripts of the probe scenarios.

The fake answers with objects shaped exactly like the real server's (every field the
version's schema knows, in upstream's layout), so it copies the first real example of
each and fills in the dynamic values at run time. The copies are masked (ids, times,
temporary paths, the host in the user agent and as codex names it) so a learned file says
nothing about the machine it was learned on and is the same on every run.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Iterable
from typing import Any

from codex_probe.fake_appserver.profile import REQUIRED_TEMPLATES, WireDocument
from codex_probe.fake_appserver.turn_profile import TURN_TEMPLATES
from codex_probe.harness.scratch import SCRATCH_FOLDER
from codex_probe.probes.releases.learn.observed import Gap

# (template name, method whose response holds it)
RESPONSES = {
    "initialize": "initialize",
    "thread_start": "thread/start",
    "thread_resume": "thread/resume",
    "turn_start": "turn/start",
    "compact_start": "thread/compact/start",
    "unsubscribe": "thread/unsubscribe",
}
ITEM_TYPES = ("userMessage", "agentMessage", "contextCompaction", "commandExecution", "reasoning")
# Server requests whose params are templates: (method, template name).
SERVER_REQUESTS = {"item/commandExecution/requestApproval": "command_approval_request"}
# Keys whose values differ from run to run but are no id, time or path: a process id, and
# the output a late command item holds (now all of it, now only what came after the call's
# answer, on 0.120.0 and 0.150.0). The fake fills both in.
MASKED_VALUES = {"processId": "0", "aggregatedOutput": ""}

MASKED_ID = "00000000-0000-7000-8000-000000000000"
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
TEMP_HOME = re.compile(SCRATCH_FOLDER + r"[^/\"\s]+")
DAY_FOLDER = re.compile(r"\d{4}/\d{2}/\d{2}")
STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}")
# Keys whose integer values are times or durations.
TIME_KEYS = re.compile(r".*(At|AtMs|Ms)$")
# The machine's name, as codex reports it (remote control's serverName): masked.
HOST = socket.gethostname()
MASKED_HOST = "codex-probe-host"
# The same inside a text that holds JSON (a model request's turn metadata).
TIME_IN_TEXT = re.compile(r'("[A-Za-z_]*(?:_at|_ms|At|Ms)"\s*:\s*)\d+')


def mask(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: mask(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v, key) for v in value]
    if key in MASKED_VALUES and value is not None:
        return MASKED_VALUES[key]
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and TIME_KEYS.fullmatch(key):
        return 0
    if isinstance(value, str):
        if key == "userAgent":
            return "codex-probe/masked"
        if HOST and value == HOST:
            return MASKED_HOST
        value = UUID.sub(MASKED_ID, value)
        value = TEMP_HOME.sub("/codex-probe", value)
        value = DAY_FOLDER.sub("1970/01/01", value)
        value = TIME_IN_TEXT.sub(r"\g<1>0", value)
        return STAMP.sub("1970-01-01T00-00-00", value)
    return value


def capture(transcripts: Iterable[list[tuple[str, Any]]]) -> dict[str, Any]:
    """The first real example of each template, over the transcripts ((direction, message)
    pairs, as the view of a record holds them) in order."""
    templates: dict[str, Any] = {}
    for transcript in transcripts:
        methods_by_id: dict[Any, str] = {}
        for direction, message in transcript:
            if not isinstance(message, dict):
                continue
            if direction == "send" and "method" in message and "id" in message:
                if message["method"] == "initialize":
                    methods_by_id = {}  # a new process: request ids start again
                methods_by_id[message["id"]] = message["method"]
                continue
            if direction != "recv":
                continue
            if "result" in message and "id" in message:
                method = methods_by_id.get(message["id"])
                for name, wanted in RESPONSES.items():
                    if method == wanted:
                        templates.setdefault(name, message["result"])
                _thread_status(message["result"], templates)
            _notification(message, templates)
    if "thread_start" in templates:
        templates["thread"] = templates["thread_start"]["thread"]
    masked: dict[str, Any] = mask(templates)
    return masked


def _thread_status(result: Any, templates: dict[str, Any]) -> None:
    """A status as a response's thread carries it (a read of an unloaded thread: notLoaded,
    which some releases never notify)."""
    thread = result.get("thread") if isinstance(result, dict) else None
    status = thread.get("status") if isinstance(thread, dict) else None
    if isinstance(status, dict) and "type" in status:
        templates.setdefault(f"status_{status['type']}", status)


def _notification(message: dict[str, Any], templates: dict[str, Any]) -> None:
    note = message.get("method")
    if note in SERVER_REQUESTS and "id" in message:
        templates.setdefault(SERVER_REQUESTS[note], message.get("params"))
    if note is None or "id" in message:
        return
    if note == "error":
        templates.setdefault("error_notification", message.get("params"))
    params = message.get("params") or {}
    item = params.get("item") or {}
    if note == "item/completed" and item.get("type") in ITEM_TYPES:
        templates.setdefault(f"item_{item['type']}", item)
    if note in ("item/started", "item/completed"):
        templates.setdefault(f"{note.replace('/', '_')}_params", params)
    if note == "thread/status/changed":
        templates.setdefault(f"status_{params['status']['type']}", params["status"])
    if note in ("thread/tokenUsage/updated", "turn/completed", "turn/started"):
        templates.setdefault(note.replace("/", "_"), params)
    templates.setdefault("notifications_carry_emitted_at_ms", "emittedAtMs" in message)


def wire_document(
    version: str, scenarios: dict[str, list[tuple[str, Any]]]
) -> tuple[WireDocument, list[Gap]]:
    """The wire file of a learned profile, and a gap per template no scenario showed."""
    templates = capture(scenarios.values())
    gaps = [
        Gap(
            f"wire.templates.{name}",
            ", ".join(scenarios),
            "-",
            f"no real message to copy the {name} template from",
            "a scenario that makes codex send it",
        )
        for name in (*REQUIRED_TEMPLATES, *TURN_TEMPLATES)
        if name not in templates
    ]
    document = WireDocument(
        captured_from=f"codex-cli {version}",
        source="the transcripts of the probe scenarios " + ", ".join(scenarios),
        templates=dict(sorted(templates.items())),
    )
    return document, gaps
