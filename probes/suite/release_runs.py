"""The probe session's release runs: each version probed once, all its findings at once.

A release run (probes/runner/release_run.py) needs every real observation before the fake can run on
a profile learned from them, so the session probes a version as a whole the first time a
test asks for it; the tests then report the findings one by one.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.seal import describe_sealing
from codex_probe.probes.domain.stability import flips, steady_findings
from codex_probe.probes.runner.release_run import ReleaseRun, Selection, Subject, probe_release


class ReleaseRuns:
    def __init__(
        self,
        selection: Selection,
        *,
        jobs: int,
        learned_dir: Path,
        subject: Subject,
        repeat: int = 1,
    ) -> None:
        self.selection = selection
        self.jobs = jobs
        self.learned_dir = learned_dir
        self.subject = subject
        self.repeat = repeat
        self.runs: dict[str, ReleaseRun] = {}
        # Per version, the findings whose outcome differed between the repeats.
        self.flips: dict[str, dict[str, Counter[str]]] = {}
        # Per version: were its app-servers sealed from the host's codex config, and if
        # not, what of it they could see (harness/codex/seal.py).
        self.sealing: dict[str, dict[str, Any]] = {}

    def get(self, version: str) -> ReleaseRun:
        """The release probed `repeat` times: the first run, any finding that flipped broken."""
        if version not in self.runs:
            repeats = [self._probe(version) for _ in range(self.repeat)]
            first = repeats[0]
            runs = [run.findings for run in repeats]
            self.flips[version] = flips(runs)
            first.findings = steady_findings(runs)
            self.runs[version] = first
            self.sealing[version] = describe_sealing()
        return self.runs[version]

    def _probe(self, version: str) -> ReleaseRun:
        return asyncio.run(
            probe_release(
                version,
                self.selection,
                jobs=self.jobs,
                learned_dir=self.learned_dir,
                subject=self.subject,
            )
        )
