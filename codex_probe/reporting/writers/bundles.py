"""Which findings get a reproduction bundle, and the writer that makes them as a run goes.

One rule (`wants_bundle`) for every command that writes bundles (probe, history, watch):
a finding of the real codex-cli that changed or broke, or that shows a watched upstream bug
present, is shown to upstream as a folder it can run. A fidelity finding is about our fake,
and an unsupported one has nothing to replay.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from codex_probe.harness.codex.install import install
from codex_probe.probes.domain.findings import Finding, Verdict
from codex_probe.probes.releases.repro.bundle import bundle_in_report
from codex_probe.probes.runner.events import Event, FindingBundled, FindingJudged, Writer


def wants_bundle(finding: Finding) -> bool:
    """Whether a finding of the real codex-cli is shown to upstream as a bundle."""
    if finding.is_fidelity:
        return False
    return finding.verdict in (Verdict.CHANGED, Verdict.BROKEN) or finding.shows_upstream_bug


class BundleWriter(Writer):
    """The bundle of each finding `wants_bundle` picks, under `out`/repro/, answered with
    the finding bundled (its `repro` names the folder, or why there is none): a writer
    that keeps findings keeps that one in place of the judged one.

    `name_binary`: the bundle's run command names the codex binary the probe ran (a folder
    kept on this machine); without it, a placeholder (a history's folders are published).
    """

    def __init__(self, out: Path, *, name_binary: bool = True) -> None:
        self.out = out
        self.name_binary = name_binary

    def handle(self, event: Event) -> Sequence[Event]:
        if not isinstance(event, FindingJudged):
            return ()
        finding = event.finding
        if event.outcome is None or not wants_bundle(finding):
            return ()
        codex = install(finding.version).binary if self.name_binary else None  # installed
        bundle = bundle_in_report(self.out, finding, event.outcome, codex)
        return (FindingBundled(replace(finding, repro=bundle)),)
