"""What a probe run says while it runs, from the events of the release run.

On a terminal, a progress bar (tqdm) counts the scenarios done, real and fake, naming the
last one. In a log (not a terminal), a line at most every HEARTBEAT seconds while scenarios
finish, with how many are done and which still run, and one when the release is done. The
real codex-cli's scenarios and the fake's may run side by side (a release with a checked-in
profile), so the count is of both. Everything goes to stderr: stdout keeps the table (or,
with --json, the answer) alone.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from typing import Never, TextIO

from tqdm import tqdm

from codex_probe.probes.runner.events import Event, ScenarioFinished, ScenarioStarted

HEARTBEAT = 10.0  # seconds between two lines of a log


class ProbeProgress:
    """One release at a time: `start`, every event of its run, then `finish`."""

    def __init__(
        self, stream: TextIO | None = None, *, bar: bool | None = None, heartbeat: float = HEARTBEAT
    ) -> None:
        self.stream = stream or sys.stderr
        self.bar_wanted = self.stream.isatty() if bar is None else bar
        self.heartbeat = heartbeat
        self._bar: tqdm[Never] | None = None
        self._version = ""
        self._started = self._said = 0.0
        self._done: Counter[str] = Counter()
        self._running: dict[tuple[str, str], None] = {}

    def start(self, version: str, scenarios: int) -> None:
        """A release whose run is expected to finish about `scenarios` scenario runs."""
        self._version, self._done, self._running = version, Counter(), {}
        self._started = self._said = time.monotonic()
        if self.bar_wanted:
            self._bar = tqdm(
                total=scenarios,
                desc=f"codex-cli {version}",
                unit="scenario",
                file=self.stream,
                leave=False,
                dynamic_ncols=True,
            )

    def on_event(self, event: Event) -> None:
        if isinstance(event, ScenarioStarted):
            self._running[(event.backend, event.scenario)] = None
        if not isinstance(event, ScenarioFinished):
            return
        self._running.pop((event.backend, event.scenario), None)
        self._done[event.backend] += 1
        if self._bar is not None:
            self._bar.set_postfix_str(f"{event.backend} {event.scenario}", refresh=False)
            self._bar.update()
        elif time.monotonic() - self._said >= self.heartbeat:
            running = ", ".join(f"{b} {s}" for b, s in self._running) or "none"
            self._say(f"{self._count()} so far; running: {running}")

    def finish(self, *, say: bool = True) -> None:
        """The release is done: its line (the bar, if any, goes). Without `say`, no line:
        a release nothing can drive is told in one line, by the caller."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if say:
            self._say(f"{self._count()} in {time.monotonic() - self._started:.1f} s")

    def _count(self) -> str:
        total = sum(self._done.values())
        each = ", ".join(f"{backend} {n}" for backend, n in sorted(self._done.items()))
        return f"{total} scenario run(s) done" + (f" ({each})" if each else "")

    def _say(self, line: str) -> None:
        self._said = time.monotonic()
        print(f"codex-cli {self._version}: {line}", file=self.stream, flush=True)
