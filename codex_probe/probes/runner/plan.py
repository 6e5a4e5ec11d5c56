"""One release run, planned: which release, what its findings are about, which findings,
how many at once, how many times, and how the fake gets a profile when the release has
none. `release_run.run_release(plan)` is the one entry point that carries it out.

Learning is passed in (`Learning.learn`, `Learning.book`): the runner knows that a profile
can be learned from a release's observations, and its answer book from its exploration,
not how (probes/releases/learn/ knows, and hands its `learn_profile` and `write_book_beside`
in through `learning_into`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from codex_probe.probes.domain.observation import Observation
from codex_probe.probes.explore.unanswered import Unanswered
from codex_probe.probes.runner.jobs import DEFAULT_JOBS
from codex_probe.probes.runner.selection import REAL, Selection, Subject


class LearnFailed(RuntimeError):
    """No profile could be learned from the observations; the message says why."""


class Gap(Protocol):
    """Something of the release the learned profile could not say."""

    def to_json(self) -> dict[str, Any]: ...


class LearnedProfile(Protocol):
    """A profile learned from a release's observations, not yet written."""

    @property
    def gaps(self) -> Sequence[Gap]: ...

    def write(self, folder: Path) -> Path: ...


Learner = Callable[[str, Mapping[str, Observation]], LearnedProfile]
# The answer book of the exploration's record (or why it could not run) and the release's
# schema folder, written beside the learned profile whose path is given; its path, or
# LearnFailed.
BookLearner = Callable[[dict[str, Any] | str | None, Path | None, Path], Path]


@dataclass(frozen=True)
class Learning:
    """How a release without a checked-in profile gets one for the fake: `learn`ed from its
    real observations and written into `folder`; with `always`, even when one is checked in
    (`codex-probe learn`)."""

    folder: Path
    learn: Learner
    always: bool = False
    # The learned profile's answer book, from the release's exploration (None: no book).
    book: BookLearner | None = None


@dataclass(frozen=True)
class RunPlan:
    """Everything a release run needs to know before it starts."""

    release: str
    selection: Selection
    subject: Subject = REAL
    jobs: int = DEFAULT_JOBS
    # Probe the release this many times: a finding whose verdict or observed values differ
    # between the runs is broken (probes/domain/stability.py).
    repeat: int = 1
    # None: a release without a checked-in profile is not learned, and its fake cannot run.
    learning: Learning | None = None
    # What the explorations of the releases before it in the same run learnt goes
    # unanswered (probes/explore/unanswered.py), shared with it; None: it learns alone.
    unanswered: Unanswered | None = None
