"""What `codex-probe probe` says on the terminal as its releases run: a line when a release
starts, its progress (reporting/probe_progress.py, on stderr) and one line when it ends (or
why nothing can drive it), and at the end the assumption-by-version table read from the
verdict writer's report, with the commands to run next."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from codex_probe.probes.domain.surface.file import SURFACE_FILE
from codex_probe.probes.domain.surface.release import Surface
from codex_probe.probes.runner.events import Event, ReleaseProbed, ReleaseStarted, Writer
from codex_probe.probes.runner.selection import Selection, Subject
from codex_probe.reporting.probe_progress import ProbeProgress
from codex_probe.reporting.table import closing_lines, profile_lines, render_table
from codex_probe.reporting.writers.verdict import VerdictWriter


class ProbeTerminal(Writer):
    """Listed after `verdict`: its table is the verdict writer's finished report."""

    def __init__(
        self,
        selection: Selection,
        subject: Subject,
        verdict: VerdictWriter,
        repeat: int,
        *,
        me: str = "codex-probe",
    ) -> None:
        """`me`: the command as the user's shell finds it, for the `next:` hints."""
        self.selection, self.subject, self.verdict, self.repeat = (
            selection,
            subject,
            verdict,
            repeat,
        )
        self.me = me
        self.started: list[str] = []
        self.surfaces: dict[str, Surface] = {}
        self.progress = ProbeProgress()

    def handle(self, event: Event) -> Sequence[Event]:
        if isinstance(event, ReleaseStarted):
            self.started.append(event.version)
            print(f"codex-cli {event.version}: probing {self._what()}", flush=True)
            self.progress.start(event.version, self._scenario_runs())
            return ()
        self.progress.on_event(event)
        if isinstance(event, ReleaseProbed):
            run = event.run
            self.progress.finish(say=run.undrivable is None)
            if run.surface is not None:
                self.surfaces[run.version] = run.surface
            if run.undrivable is not None:
                print(
                    f"codex-cli {run.version}: the probes cannot drive this release: "
                    f"{run.undrivable}",
                    file=sys.stderr,
                )
        return ()

    def _scenario_runs(self) -> int:
        """About how many scenario runs a release takes (learning a profile runs them all)."""
        fake = len(self.selection.scenarios) if self.selection.compare_with_fake else 0
        return (len(self.selection.subject_scenarios) + fake) * max(1, self.repeat)

    def finish(self, *, complete: bool) -> None:
        # An interrupted run says so in one line (the command's); a run that could drive
        # none of its releases has nothing to tabulate.
        if not complete or set(self.verdict.undrivable) >= set(self.started):
            return
        print("\n".join(self._closing()))

    def _what(self) -> str:
        where = "the real codex-cli" if self.subject.kind == "real" else "the fake"
        also = " and the fake imitating it" if self.selection.compare_with_fake else ""
        return (
            f"{len(self.selection.finding_ids)} finding(s) from "
            f"{len(self.selection.scenarios)} scenario(s) on {where}{also}"
        )

    def _closing(self) -> list[str]:
        report, verdict = self.verdict.report, self.verdict.path
        lines = ["", *render_table(report), "", *profile_lines(self.verdict.fake_profiles)]
        for version, surface in self.surfaces.items():
            gaps = f"; not read: {', '.join(surface.missing)}" if surface.missing else ""
            counts = ", ".join(f"{len(keys)} {aspect}" for aspect, keys in surface.aspects.items())
            lines.append(f"surface of codex-cli {version}: {surface.digest()} ({counts}){gaps}")
        if self.repeat > 1:
            lines += self._repeats()
        lines += closing_lines(report)
        versions = " ".join(f"--codex {v}" for v in report.versions)
        lines += [
            f"verdict: {verdict}",
            *([f"surface: {verdict.parent / SURFACE_FILE}"] if self.surfaces else []),
            f"next: {self.me} report {versions} --out {verdict.parent}   "
            "(the Allure page and summary.md)",
            f"      {self.me} gate {versions} --verdict {verdict} --no-run   "
            "(exit 0 when every required assumption holds)",
        ]
        return lines

    def _repeats(self) -> list[str]:
        unsteady, flipped = self.verdict.surface_flips, self.verdict.flips
        surface = (
            "is the same in every run"
            if not unsteady
            else "differs between runs at "
            + ", ".join(f"{v}: {len(keys)} key(s)" for v, keys in unsteady.items())
        )
        findings = (
            "no finding differs between runs"
            if not flipped
            else f"{sum(len(f) for f in flipped.values())} finding(s) differ between runs "
            "(broken): " + ", ".join(f"{v}:{i}" for v, f in flipped.items() for i in f)
        )
        return [
            f"repeated {self.repeat} times: the surface {surface}",
            f"repeated {self.repeat} times: {findings}",
        ]
