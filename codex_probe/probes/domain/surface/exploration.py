"""The exploration aspect of a release's surface, read off its exploration record
(probes/explore/record.py) and its schema.

One key per cell, `METHOD STATE VARIANT` (`thread/start none sandbox=workspace-write`,
`item/commandExecution/requestApproval idle decision=accept`), whose value says:

    answer            the answer's shape with its enumerated values kept (enumerated.py)
    refused           the refusal's code and message (ids and temporary folders masked)
    unanswered        true: no answer within the exploration's deadline
    not run           why the cell could not run (its state was not reached...)
    notifications     the notifications the call caused, each its method and enumerated
                      values, sorted (as many times as each came): where one falls among
                      the others is codex's timing as often as not (a command's
                      item/completed and the next answer's stream; a released turn and
                      the call that released it); streamed deltas, token usage and rate
                      limits left out: how many come is timing too
    server requests   what codex asked the client (an approval), with its enumerated
                      values, and what the client answered
    unsettled         the turn the call started that did not complete in time
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from codex_probe.probes.domain.surface.enumerated import (
    MessageSchemas,
    enumerated_shape,
    enumerated_values,
)
from codex_probe.probes.domain.surface.shape import mask_text
from codex_probe.probes.domain.surface.wire import STATUS, mask_texts

# Streamed in pieces whose number is codex's timing, or reported by a task of their own.
STREAMED = ("Delta", "/delta", "thread/tokenUsage/updated", "account/rateLimits/updated")
# Approval cells record the turn/start that made codex ask.
APPROVAL_REQUEST = "turn/start"


def exploration_aspect(record: dict[str, Any], schema_dir: Path | None) -> dict[str, Any]:
    """`METHOD STATE VARIANT` -> the cell's value (see the module)."""
    schemas = MessageSchemas(schema_dir)
    aspect: dict[str, Any] = {}
    for cell in record.get("cells") or []:
        key = f"{cell['method']} {cell['state']} {cell['variant']}"
        aspect[key] = cell_value(cell, schemas)
    return aspect


def cell_value(cell: dict[str, Any], schemas: MessageSchemas) -> dict[str, Any]:
    value: dict[str, Any] = {}
    outcome = cell.get("outcome")
    method = APPROVAL_REQUEST if cell.get("kind") == "approval" else str(cell["method"])
    if outcome == "answered":
        value["answer"] = enumerated_shape(cell.get("result"), schemas.response(method))
    elif outcome == "refused":
        error = cell.get("error") or {}
        value["refused"] = {
            "code": error.get("code"),
            "message": mask_text(str(error.get("message"))),
        }
        if error.get("data") is not None:
            value["refused"]["data"] = mask_texts(error.get("data"))
    elif outcome == "unanswered":
        value["unanswered"] = True
    else:
        value["not run"] = mask_text(str(cell.get("why")))
    # Only streamed ones (left out) are none: whether a delta fell inside the call's window
    # is timing (0.121.0 to 0.131.0's `turn/steer in-flight` flipped [] and none by release).
    if labels := notification_labels(cell.get("notifications") or [], schemas):
        value["notifications"] = labels
    asked = cell.get("server_requests") or []
    if asked:
        value["server requests"] = [
            {
                "asked": label(request, "server request", schemas),
                "answered": mask_texts(request.get("answer")),
            }
            for request in asked
        ]
    if cell.get("unsettled"):
        value["unsettled"] = cell["unsettled"]
    return value


def notification_labels(notifications: list[dict[str, Any]], schemas: MessageSchemas) -> list[str]:
    """Each notification's label, sorted, the streamed ones left out, and a thread's status
    said twice in a row said once (0.171.0 reports an archived thread notLoaded once or
    twice, as wire.py found for a resume racing an unload)."""
    labels: list[str] = []
    told: dict[Any, str] = {}
    for note in notifications:
        method = str(note.get("method"))
        if any(part in method for part in STREAMED):
            continue
        text = label(note, "server notification", schemas)
        if method == STATUS:
            params = note.get("params") if isinstance(note.get("params"), dict) else {}
            thread = params.get("threadId") if isinstance(params, dict) else None
            if told.get(thread) == text:
                continue
            told[thread] = text
        labels.append(text)
    return sorted(labels)


def label(message: dict[str, Any], kind: str, schemas: MessageSchemas) -> str:
    """A message's method and the values of its enumerated fields."""
    method = str(message.get("method"))
    kept = enumerated_values(message.get("params"), schemas.params(kind, method))
    if not kept:
        return method
    return f"{method} {json.dumps(kept, sort_keys=True, separators=(',', ':'))}"
