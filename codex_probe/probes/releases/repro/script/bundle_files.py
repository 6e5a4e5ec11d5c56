"""The files beside reproduce.py, read and checked before anything runs.

A damaged bundle is not a behaviour of codex: a file that is missing, not JSON, or JSON of
another shape (a line that is `{}`, a list, a string, a step without its label) stops the
run with one line naming the file and the line, and exit 2 (the run could not be made),
never a traceback and never exit 1 (codex behaves otherwise).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from codex_probe.probes.releases.repro.script.outcomes import CouldNotRun

# The kinds of step requests.jsonl may hold (codex-probe's scenario steps).
STEP_KINDS = (
    "restart",
    "start",
    "turn",
    "begin_turn",
    "finish_turn",
    "steer",
    "compact",
    "resume",
    "fork",
    "read",
    "unsubscribe",
    "attempt",
)
VERDICTS = ("holds", "changed", "broken")


class Bundle:
    """The files beside this script."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.finding = _object(folder / "finding.json", ("reads", "expected", "refusal_rules"))
        for key in ("finding", "version", "statement", "spec_section"):
            if not isinstance(self.finding.get(key), str):
                raise CouldNotRun(f"{folder / 'finding.json'}: '{key}' must be a string")
        compared = self.finding.get("compared", [])
        if not isinstance(compared, list) or not all(isinstance(k, str) for k in compared):
            raise CouldNotRun(f"{folder / 'finding.json'}: 'compared' must be a list of names")
        self.steps = [_step(line, where) for where, line in _json_lines(folder / "requests.jsonl")]
        self.replies: dict[str, list[dict[str, Any]]] = {}
        for where, reply in _json_lines(folder / "replies.jsonl"):
            if not isinstance(reply, dict) or not isinstance(reply.get("step"), str):
                raise CouldNotRun(f"{where}: expected an object with a 'step' string")
            self.replies.setdefault(reply["step"], []).append(reply)
        self.config = _text(folder / "config.toml")
        self.recorded = _object(folder / "observation.json", ("outcome",))
        outcome = self.recorded["outcome"]
        if not isinstance(outcome, dict) or outcome.get("verdict") not in VERDICTS:
            raise CouldNotRun(
                f"{folder / 'observation.json'}: 'outcome' must be an object whose verdict is "
                + " or ".join(VERDICTS)
            )
        self.recorded_outcome: dict[str, Any] = outcome


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CouldNotRun(f"{path}: cannot be read: {error}") from None


def _object(path: Path, keys: tuple[str, ...]) -> dict[str, Any]:
    try:
        value = json.loads(_text(path))
    except ValueError as error:
        raise CouldNotRun(f"{path}: not JSON: {error}") from None
    if not isinstance(value, dict):
        raise CouldNotRun(f"{path}: expected a JSON object")
    for key in keys:
        if not isinstance(value.get(key), dict):
            raise CouldNotRun(f"{path}: '{key}' must be an object")
    return value


def _json_lines(path: Path) -> list[tuple[str, Any]]:
    """(file:line, value) of each non-blank line."""
    found = []
    for number, line in enumerate(_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            found.append((f"{path}:{number}", json.loads(line)))
        except ValueError as error:
            raise CouldNotRun(f"{path}:{number}: not JSON: {error}") from None
    return found


def _step(step: Any, where: str) -> dict[str, Any]:
    if not isinstance(step, dict):
        raise CouldNotRun(f"{where}: expected a step object, got {type(step).__name__}")
    if step.get("step") not in STEP_KINDS:
        raise CouldNotRun(f"{where}: 'step' must be one of {', '.join(STEP_KINDS)}")
    if not isinstance(step.get("label"), str) or not step["label"]:
        raise CouldNotRun(f"{where}: 'label' must be a non-empty string")
    request = step.get("request")
    if request is not None and (
        not isinstance(request, dict) or not isinstance(request.get("method"), str)
    ):
        raise CouldNotRun(f"{where}: 'request' must be an object with a 'method' string")
    for key in ("waits_for", "remember"):
        if not isinstance(step.get(key, {}), dict):
            raise CouldNotRun(f"{where}: '{key}' must be an object")
    kind, waits = step["step"], step.get("waits_for", {})
    if kind not in ("restart", "finish_turn") and request is None:
        raise CouldNotRun(f"{where}: a {kind} step needs its 'request'")
    for needed in WAITS_NEEDED.get(kind, ()):
        if needed not in waits:
            raise CouldNotRun(f"{where}: a {kind} step's 'waits_for' needs '{needed}'")
    return step


# What each kind of step waits for, as codex-probe wrote it.
WAITS_NEEDED = {
    "turn": ("notification", "threadId"),
    "compact": ("notification", "threadId"),
    "finish_turn": ("notification", "threadId"),
    "begin_turn": ("model_requests",),
    "unsubscribe": ("thread_unloaded", "within_s"),
}
