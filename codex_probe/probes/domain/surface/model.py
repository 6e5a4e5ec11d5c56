"""The model side of a release's surface: every request codex made of the wiretap during a step, as
the readings label it (codex_probe/probes/domain/reading.py: our markers located, codex's own blocks
classified), with the body's keys, the tools offered by name, and the SSE events the wiretap
streamed back until the answer ended or codex hung up."""

from __future__ import annotations

from typing import Any

from codex_probe.probes.domain.reading import View, normalized_request


def tool_name(tool: Any) -> str:
    """A tool offered to the model, by name (or by type for a built-in one)."""
    if not isinstance(tool, dict):
        return str(type(tool).__name__)
    name = tool.get("name")
    return str(name) if name else f"<{tool.get('type')}>"


def request_value(request: dict[str, Any]) -> dict[str, Any]:
    """One captured request as the surface keeps it."""
    body = request.get("body")
    value: dict[str, Any] = {"method": request.get("method"), "path": request.get("path")}
    if isinstance(body, dict):
        labelled = normalized_request(body, str(request.get("path", "")))
        value.update(
            path=labelled["path"],
            kind=labelled["kind"],
            body_keys=sorted(body),
            instructions=labelled["instructions"],
            input=labelled["input"],
            tools=sorted(tool_name(tool) for tool in body.get("tools") or []),
        )
    elif body is not None:
        value["body"] = "not an object"
    if "events" in request:
        value["events"] = list(request.get("events") or [])
        if request.get("abandoned"):
            value["events"].append("(codex hung up)")
    return value


def model_requests(view: View) -> dict[str, list[dict[str, Any]]]:
    """Per step, the requests it made of the wiretap, in order."""
    found: dict[str, list[dict[str, Any]]] = {}
    for step in view.steps:
        requests = view.requests_of(step["label"])
        if requests:
            found[step["label"]] = [request_value(request) for request in requests]
    return found
