"""surface.json, written from a run's events: the surface of every release whose run read
one (a run of some findings only reads none), written as soon as the release is probed, so
that a writer after this one (a history's record, which reads the file to find its change
points) finds it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from codex_probe.probes.domain.surface.file import write_surfaces
from codex_probe.probes.domain.surface.release import Surface
from codex_probe.probes.runner.events import Event, ReleaseProbed, Writer


class SurfaceWriter(Writer):
    def __init__(self, path: Path) -> None:
        self.path = path
        self.surfaces: dict[str, Surface] = {}

    def handle(self, event: Event) -> Sequence[Event]:
        if isinstance(event, ReleaseProbed) and event.run.surface is not None:
            self.surfaces[event.run.version] = event.run.surface
            write_surfaces(self.path, self.surfaces)
        return ()
