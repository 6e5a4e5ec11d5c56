"""The probe session's release runs: each version probed once, all its findings at once.

A release run (probes/release.py) needs every real observation before the fake can run on
a profile learned from them, so the session probes a version as a whole the first time a
test asks for it; the tests then report the findings one by one.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from probes.release import ReleaseRun, Selection, probe_release


class ReleaseRuns:
    def __init__(self, selection: Selection, *, jobs: int, learned_dir: Path) -> None:
        self.selection = selection
        self.jobs = jobs
        self.learned_dir = learned_dir
        self.runs: dict[str, ReleaseRun] = {}

    def get(self, version: str) -> ReleaseRun:
        if version not in self.runs:
            self.runs[version] = asyncio.run(
                probe_release(version, self.selection, jobs=self.jobs, learned_dir=self.learned_dir)
            )
        return self.runs[version]
