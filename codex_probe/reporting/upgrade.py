"""Can I upgrade codex-cli from A to B? One answer from the recorded history, with reasons.

    yes (0)      nothing the design requires changed between A and B, or every such change
                 is accepted by the baseline
    no (1)       a required assumption changed (listed, each with the first release where it
                 appeared), or a baseline entry for B no longer matches (stale)
    unknown (3)  a release from A to B could not be probed: it has no record, or a required
                 finding of it is broken

A and B are compared directly (a change that came and went between them is no change), and
each difference is placed by the history: the first release of B's value that lasts to B,
and the release before it. What blocks: a gated finding (required; with `strict`, any
assumption) that does not hold on B where A differs, by verdict or, when both are changed,
by what was observed. What is reported and never blocks: values that moved under a verdict
that holds, an assumption that holds again, the protocol surface, watched upstream bugs, and
the fake's fidelity (which judges codex-probe's fake, not codex). No beats unknown, as in
the gate: a known change is news even when another release could not be measured. A release
npm publishes but whose codex cannot run is skipped, and said.

The baseline is the gate's (`[[expected]] codex = B, id, verdict, reason`): an entry for B
accepts B's verdict of that finding.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from codex_probe.probes.domain.surface.diff import SurfaceChange, diff_command
from codex_probe.probes.domain.watch import StateChange
from codex_probe.reporting.baseline import AcceptedChange, AcceptedChanges
from codex_probe.reporting.history_view import Difference, HistoryView
from codex_probe.reporting.surface_text import short_listing

YES, NO, UNKNOWN = 0, 1, 3
ANSWERS = {YES: "yes", NO: "no", UNKNOWN: "unknown"}


@dataclass(frozen=True)
class WeighedChange:
    """One value that differs between A and B, as the answer weighs it."""

    difference: Difference
    required: bool
    section: str
    gated: bool  # a finding this answer gates (required, or any assumption under strict)
    blocking: bool  # the change forbids the upgrade, unless accepted
    accepted: str | None = None  # the baseline entry's reason
    # A surface aspect's change: each key that differs, with both values (a digest says
    # nothing to a reader); empty where a release has no surface file.
    keys: tuple[SurfaceChange, ...] = ()

    @property
    def forbids(self) -> bool:
        return self.blocking and self.accepted is None

    def to_json(self) -> dict[str, Any]:
        return {
            **self.difference.to_json(),
            "subject": self.difference.subject,
            "required": self.required,
            "blocking": self.blocking,
            "accepted": self.accepted,
            **({"keys": [key.to_json() for key in self.keys]} if self.keys else {}),
        }


@dataclass
class UpgradeAnswer:
    a: str
    b: str
    strict: bool = False
    releases: list[str] = field(default_factory=list)  # recorded and probed, A to B
    probed_now: list[str] = field(default_factory=list)
    not_installable: list[str] = field(default_factory=list)
    changes: list[WeighedChange] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # why a release could not be had
    stale: list[str] = field(default_factory=list)  # baseline entries for B that do not match
    evidence: dict[str, str] = field(default_factory=dict)  # finding -> a line of B's evidence
    history: str = ""  # the history folder the answer read

    @property
    def every_key(self) -> str:
        """The command that lists every surface change from A to B, read from the history."""
        return diff_command(self.a, self.b, self.history or None)

    @property
    def compared(self) -> bool:
        """Both ends were probed, so they could be compared."""
        return self.a in self.releases and self.b in self.releases

    @property
    def exit_code(self) -> int:
        if self.stale or any(change.forbids for change in self.changes):
            return NO
        return UNKNOWN if self.unknown else YES

    @property
    def answer(self) -> str:
        return ANSWERS[self.exit_code]

    def to_json(self) -> dict[str, Any]:
        return {
            "from": self.a,
            "to": self.b,
            "answer": self.answer,
            "exit_code": self.exit_code,
            "strict": self.strict,
            "releases": self.releases,
            "probed_now": self.probed_now,
            "not_installable": self.not_installable,
            "changes": [change.to_json() for change in self.changes],
            "unknown": self.unknown,
            "stale_baseline": self.stale,
        }

    def lines(self) -> list[str]:
        said = [f"can I upgrade codex-cli {self.a} -> {self.b}? {self.answer}"]
        recorded = f"{len(self.releases)} release(s) recorded from {self.a} to {self.b}"
        probed = f", {len(self.probed_now)} probed now" if self.probed_now else ", none probed now"
        skipped = (
            f"; not installable, skipped: {', '.join(self.not_installable)}"
            if self.not_installable
            else ""
        )
        said.append(f"  from the history: {recorded}{probed}{skipped}")
        # A finding is listed once, with every value of it that moved, where its worst is.
        forbidden = {c.difference.subject for c in self.changes if c.forbids}
        blocked = {c.difference.subject for c in self.changes if c.blocking} - forbidden
        forbidding = [c for c in self.changes if c.difference.subject in forbidden]
        accepted = [c for c in self.changes if c.difference.subject in blocked]
        others = [c for c in self.changes if c.difference.subject not in forbidden | blocked]
        if forbidding:
            gated = "required assumptions" + (
                "; with --strict, informative ones too" if self.strict else ""
            )
            said.append(f"  changed, and gated ({gated}):")
            said += _grouped(forbidding, self.evidence, self.every_key)
        if self.stale:
            said.append("  stale baseline entries (they no longer match the release):")
            said += [f"  - {line}" for line in self.stale]
        if self.unknown:
            said.append("  unknown, because:")
            said += [f"  - {line}" for line in self.unknown]
        if accepted:
            said.append("  changed, accepted by the baseline:")
            said += _grouped(accepted, {}, self.every_key)
        if not self.compared:
            ends = [v for v in (self.a, self.b) if v not in self.releases]
            said.append(f"  {self.a} and {self.b} cannot be compared: {', '.join(ends)} not probed")
        elif not forbidding and not self.stale:
            said.append(
                "  nothing the design requires changed"
                + (" among the releases recorded" if self.unknown else "")
                + (" (informative assumptions gated too: --strict)" if self.strict else "")
                + ("." if not others else "; changed, not gated:")
            )
        elif others:
            said.append("  changed, not gated:")
        said += _grouped(others, {}, self.every_key)
        return said


def judge_upgrade(
    view: HistoryView,
    a: str,
    b: str,
    published: list[str],
    *,
    baseline: AcceptedChanges | None = None,
    strict: bool = False,
    probed_now: list[str] | None = None,
) -> UpgradeAnswer:
    """The answer for A -> B, `published` being every release from A to B in order."""
    answer = UpgradeAnswer(
        a, b, strict=strict, probed_now=list(probed_now or []), history=str(view.folder)
    )
    for version in published:
        release = view.release(version)
        if release is None:
            answer.unknown.append(f"{version}: not recorded in the history")
            continue
        if not release.probed:
            if version in (a, b):
                answer.unknown.append(f"{version}: not installable, nothing to compare")
            else:
                answer.not_installable.append(version)
            continue
        answer.releases.append(version)
        for found in release.findings.values():
            finding = found.finding
            info = view.finding(finding.id)
            if finding.verdict == "broken" and info is not None and _gated(info.group, strict):
                answer.unknown.append(f"{version}: {finding.id} is broken: {finding.summary}")
    answer.unknown.extend(_unrecorded(view, answer.releases))
    if a not in answer.releases or b not in answer.releases:
        return answer
    accepted = (baseline or AcceptedChanges()).for_version(b)
    answer.changes = _weighed(view, a, b, strict, accepted)
    for change in answer.changes:
        subject = change.difference.subject
        on_b = view.recorded(b, subject)
        if change.forbids and on_b is not None and on_b.finding.evidence:
            answer.evidence[subject] = f"{b}: {_one_line(on_b.finding.evidence[0])}"
    answer.stale = _stale(view, b, accepted)
    return answer


def _unrecorded(view: HistoryView, releases: list[str]) -> list[str]:
    """A required finding some release of the range records and another one lacks: that
    record is incomplete (or damaged), and an absent finding is no evidence of a change."""
    recorded = {version: view.release(version) for version in releases}
    gated = {
        finding
        for release in recorded.values()
        if release is not None
        for finding, found in release.findings.items()
        if found.finding.required
    }
    return [
        f"{version}: {finding} (required) is not recorded: the record is incomplete"
        for version, release in recorded.items()
        if release is not None
        for finding in sorted(gated - set(release.findings))
    ]


def _gated(group: str, strict: bool) -> bool:
    return group == "required" or (strict and group == "informative")


def _weighed(
    view: HistoryView, a: str, b: str, strict: bool, accepted: dict[str, AcceptedChange]
) -> list[WeighedChange]:
    changes = []
    for difference in view.differences(a, b):
        info = view.finding(difference.subject)
        gated = info is not None and _gated(info.group, strict)
        on_b, on_a = view.recorded(b, difference.subject), view.recorded(a, difference.subject)
        after = None if on_b is None else on_b.finding
        before = None if on_a is None else on_a.finding
        # Not holding on B, where A differs: by verdict, or (both changed) by what was seen.
        blocking = (
            gated
            and after is not None
            and after.verdict == "changed"
            and difference.kind in ("verdict", "observed")
            and (
                difference.kind == "verdict" or (before is not None and before.verdict == "changed")
            )
        )
        entry = accepted.get(difference.subject)
        reason = (
            entry.reason
            if blocking
            and entry is not None
            and after is not None
            and entry.verdict == after.verdict
            else None
        )
        changes.append(
            WeighedChange(
                difference,
                required=info is not None and info.required,
                section=info.spec_section if info else "",
                gated=gated,
                blocking=blocking,
                accepted=reason,
                keys=tuple(view.surface_changes(a, b, difference.subject))
                if difference.kind == "surface"
                else (),
            )
        )
    return sorted(changes, key=lambda c: (not c.blocking, not c.required))


def _stale(view: HistoryView, b: str, accepted: dict[str, AcceptedChange]) -> list[str]:
    """Entries for B that its verdicts no longer bear out (the gate fails them too)."""
    stale = []
    for finding_id, entry in accepted.items():
        on_b = view.recorded(b, finding_id)
        if on_b is None or on_b.finding.verdict != entry.verdict:
            found = "no finding" if on_b is None else f"it {on_b.finding.verdict}"
            stale.append(f"{finding_id} on {b}: the baseline expects {entry.verdict}, {found}")
    return stale


def _grouped(changes: list[WeighedChange], evidence: dict[str, str], every_key: str) -> list[str]:
    """Per finding (or aspect, or issue): where it changed, then each value that moved."""
    by_subject: dict[str, list[WeighedChange]] = {}
    for change in changes:
        by_subject.setdefault(change.difference.subject, []).append(change)
    lines = []
    for subject, found in by_subject.items():
        first = found[0]
        kind = first.difference.kind
        if subject.startswith("fake-fidelity-"):
            name = f"{subject} (the fake's fidelity)"
        elif kind in ("verdict", "observed"):
            words = "required" if first.required else "informative"
            name = f"{subject} ({words}{', spec ' + first.section if first.section else ''})"
        else:
            name = f"{subject} ({kind})"
        places = {_where(c.difference) for c in found}
        shared = places.pop() if len(places) == 1 else ""
        accepted = next((c.accepted for c in found if c.accepted), None)
        lines.append(
            f"  - {name}{', ' + shared if shared else ''}:"
            + (f" accepted: {accepted}" if accepted else "")
        )
        for change in found:
            if change.keys:  # a surface aspect: its keys and what changed, not two digests
                lines += _surface_lines(change.keys, every_key)
            else:
                lines.append(f"      {_part(change, subject, with_place=not shared)}")
        if subject in evidence:
            lines.append(f"      evidence on {evidence[subject]}")
    return lines


def _surface_lines(keys: tuple[SurfaceChange, ...], every_key: str) -> list[str]:
    shown, left = short_listing(list(keys))
    lines = [f"      {len(keys)} key(s) differ:"]
    for where, changed in shown:
        lines += [f"        {where}", *(f"          {line}" for line in changed)]
    if left:
        lines.append(f"        ... {left} more alike group(s): {every_key}")
    return lines


def _where(difference: Difference) -> str:
    if not difference.first_changed:
        return ""
    where = f"first in {difference.first_changed} (last same: {difference.last_same})"
    if difference.changes > 1:
        where += f", changed {difference.changes} times between them"
    return where


def _part(change: WeighedChange, subject: str, *, with_place: bool) -> str:
    difference = change.difference
    name = difference.key.removeprefix(subject).lstrip(".:/ ")
    what = "verdict" if difference.kind == "verdict" else name or difference.kind
    if difference.kind == "watch":
        # The watch list's word for it (fixed, back); its places are said below.
        watched = StateChange.of(difference.key, "", "", difference.before, difference.after)
        what = watched.kind if watched else "state"
    place = _where(difference) if with_place else ""
    moved = f"{what}: {_short(difference.before)} -> {_short(difference.after)}"
    return moved + (f", {place}" if place else "")


def _short(value: Any, limit: int = 100) -> str:
    """A value as JSON (a list of one string as that string); verdicts and states as words."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        value = value[0]
    words = isinstance(value, str) and value in ("holds", "changed", "broken", "present", "absent")
    text = value if words else json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _one_line(text: str, limit: int = 240) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
