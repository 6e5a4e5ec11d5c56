"""What a release run says as it goes, and the writers that listen.

The run (probes/runner/release_run.py) emits: the release started, a scenario started or
finished on a backend, each finding judged, the release probed. It does not know who
listens. A command lists its writers once (`Writers([...])`): the reproduction bundles, the
verdict file, the Allure results, the surface file, the terminal, history's record, the
watch list's output (codex_probe/reporting/writers/ and the commands). Each writer sees
every event in order; a writer may answer an event with events of its own (the bundle writer
answers a judged finding with the same finding bundled), which every writer then sees.
Nothing changes a finding once it is made: a finding with its bundle is a new value
(`dataclasses.replace`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from codex_probe.probes.domain.findings import Finding
from codex_probe.probes.domain.observation import ScenarioOutcome
from codex_probe.probes.runner.release import ReleaseRun

BackendKind = Literal["real", "fake"]


@dataclass(frozen=True)
class ReleaseStarted:
    """A release's run begins (before its first scenario)."""

    version: str


@dataclass(frozen=True)
class ScenarioStarted:
    version: str
    backend: BackendKind
    scenario: str


@dataclass(frozen=True)
class ScenarioFinished:
    version: str
    backend: BackendKind
    scenario: str
    outcome: ScenarioOutcome


@dataclass(frozen=True)
class FindingJudged:
    """A finding, final (a repeated run judges once, after every repeat); `outcome` is the
    run of its scenario it was read from (None for the fake-versus-real comparison)."""

    finding: Finding
    outcome: ScenarioOutcome | None


@dataclass(frozen=True)
class FindingBundled:
    """A judged finding with its reproduction bundle (`finding.repro`: its folder, or why
    it has none), answered by the bundle writer to the FindingJudged it bundled."""

    finding: Finding


@dataclass(frozen=True)
class ReleaseProbed:
    """A release's run ended: its findings were all judged before this."""

    run: ReleaseRun


Event = (
    ReleaseStarted
    | ScenarioStarted
    | ScenarioFinished
    | FindingJudged
    | FindingBundled
    | ReleaseProbed
)
Listener = Callable[[Event], None]


def ignore(event: Event) -> None:
    """The listener of a run nobody watches."""


class Writer:
    """One output of a command, fed by the run's events (schemathesis' event handler).

    `start` comes once, before the first event (what a run killed outright leaves behind);
    `handle` sees every event, and answers with the events it makes of it (none by
    default); `finish` comes once, after the last event, whether the command ran to its end
    (`complete`) or was interrupted: what the writer writes then says which.
    """

    def start(self) -> None:
        return None

    def handle(self, event: Event) -> Sequence[Event]:
        return ()

    def finish(self, *, complete: bool) -> None:
        return None


class Writers:
    """A command's writers, listed once: each event reaches each writer in this order, and
    the events a writer answers with reach them all after it."""

    def __init__(self, writers: Iterable[Writer]) -> None:
        self.writers = list(writers)

    def __call__(self, event: Event) -> None:
        pending = deque([event])
        while pending:
            current = pending.popleft()
            for writer in self.writers:
                pending.extend(writer.handle(current))

    def start(self) -> None:
        for writer in self.writers:
            writer.start()

    def finish(self, *, complete: bool) -> None:
        for writer in self.writers:
            writer.finish(complete=complete)
