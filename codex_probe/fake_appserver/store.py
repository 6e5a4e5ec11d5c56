"""Threads on disk under $CODEX_HOME/sessions/fake-codex/, one JSON file each.

A restart of the fake finds them again, so `thread/resume` after a restart behaves
like upstream's resume of a rollout file. Like the rollout, a thread's file is written
with its first turn, not at thread/start. Writes are atomic (temp file + rename).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

ThreadRecord = dict[str, Any]


class ThreadStore:
    def __init__(self, codex_home: Path) -> None:
        self.folder = codex_home / "sessions" / "fake-codex"

    def path_of(self, thread_id: str) -> Path:
        return self.folder / f"{thread_id}.json"

    def save(self, record: ThreadRecord) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".tmp-")
        with os.fdopen(handle, "w", encoding="utf-8") as sink:
            json.dump(record, sink)
        os.replace(temporary, self.path_of(record["id"]))

    def holds(self, thread_id: str) -> bool:
        return self.path_of(thread_id).is_file()

    def load(self, thread_id: str) -> ThreadRecord | None:
        path = self.path_of(thread_id)
        if not path.is_file():
            return None
        record: ThreadRecord = json.loads(path.read_text(encoding="utf-8"))
        return record

    def delete(self, thread_id: str) -> None:
        self.path_of(thread_id).unlink(missing_ok=True)
