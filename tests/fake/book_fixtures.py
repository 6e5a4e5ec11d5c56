"""Small synthetic exploration records and answer books for the fake's tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codex_probe.fake_appserver.answer_book import book_path, write_book
from codex_probe.probes.releases.learn.book import learn_book
from tests.fake.conftest import copy_profile


def cell(
    method: str,
    state: str,
    variant: str,
    params: Any,
    *,
    kind: str = "valid",
    result: Any = None,
    error: dict[str, Any] | None = None,
    notifications: list[dict[str, Any]] | None = None,
    outcome: str | None = None,
) -> dict[str, Any]:
    """One cell of an exploration record (probes/explore/record.py)."""
    found: dict[str, Any] = {
        "method": method,
        "state": state,
        "variant": variant,
        "kind": kind,
        "params": params,
        "outcome": outcome or ("refused" if error is not None else "answered"),
    }
    if error is not None:
        found["error"] = {"data": None, **error}
    else:
        found["result"] = result
    if notifications:
        found["notifications"] = notifications
    return found


NO_ROLLOUT = "no rollout found for thread id {{thread}}"

# thread/archive as 0.171.0 answers it on an idle thread and on an id nobody has.
ARCHIVE_CELLS = [
    cell(
        "thread/archive",
        "idle",
        "minimal",
        {"threadId": "{{thread}}"},
        result={},
        notifications=[{"method": "thread/archived", "params": {"threadId": "{{thread}}"}}],
    ),
    cell(
        "thread/archive",
        "none",
        "minimal",
        {"threadId": "{{thread}}"},
        error={"code": -32600, "message": NO_ROLLOUT},
    ),
]


def record(version: str, cells: list[dict[str, Any]], methods: list[str] | None = None) -> Any:
    return {
        "format": 1,
        "version": version,
        "seed": 0,
        "methods": methods or sorted({c["method"] for c in cells}),
        "states": {},
        "cells": cells,
        "unsent": [],
        "outbound": {},
        "walks": [],
        "surprises": [],
    }


def profile_with_book(version: str, folder: Path, cells: list[dict[str, Any]]) -> Path:
    """The checked-in profile of `version` copied into `folder`, with a book of `cells`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = copy_profile(version, folder)
    write_book(learn_book(record(version, cells)), book_path(path))
    return path
