"""The watch list: known upstream bugs of codex, each decided per release by findings the
probes judge anyway.

An entry names the upstream issue (`openai/codex#N`), its URL and title, what "present"
means in one sentence a maintainer would accept, and its signs: a finding (an
assumption's id, so the same run decides it) and the observed values that show the bug.
An issue is present on a release when any of its signs shows; absent when every sign was
judged and none shows; otherwise undecided, with the reason (the finding is broken, did
not run, or the release lacks what it needs): never a silent unknown.

What each entry reads was measured on the real releases before it was written down
(docs/observations/watched-issues.md); a report's own claims are not believed.

`issue_states` decides every issue from one release's findings as verdict.json or
history.json hold them ({id: {"verdict", "observed", "summary"?}}), `upstream_of` gives a
finding's `upstream` field, and `state_changes` says where an issue's state changed along
a range of releases ("fixed in X", "back in X").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

ISSUES_URL = "https://github.com/openai/codex/issues/"
# The verdicts whose observed values a sign can read.
JUDGED = ("holds", "changed")
# How long the scenarios the watch reads wait for a turn's turn/completed once codex has its
# input (codex_probe/probes/runner/scenarios.py COMPLETION_GRACE_S), in the words of the list.
WAITED = "20 s"


class State(StrEnum):
    PRESENT = "present"
    ABSENT = "absent"
    BROKEN = "broken"  # undecided: the reason says why


@dataclass(frozen=True)
class Sign:
    """A finding whose observed values show the bug: all of `values`, as observed."""

    finding: str
    values: Mapping[str, Any]

    def shows(self, observed: Mapping[str, Any]) -> bool:
        return all(key in observed and observed[key] == v for key, v in self.values.items())

    def describe(self) -> str:
        values = ", ".join(f"{key} = {value!r}" for key, value in self.values.items())
        return f"{self.finding}: {values}"


@dataclass(frozen=True)
class Watched:
    issue: str  # "openai/codex#N"
    title: str
    present_means: str
    signs: tuple[Sign, ...]

    @property
    def number(self) -> int:
        return int(self.issue.rsplit("#", 1)[1])

    @property
    def url(self) -> str:
        return f"{ISSUES_URL}{self.number}"

    @property
    def findings(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(sign.finding for sign in self.signs))


WATCHED: tuple[Watched, ...] = (
    Watched(
        "openai/codex#41491",
        "Custom base instructions are duplicated inside <model_switch> after switching "
        "models on a later turn",
        "After a turn/start that names another model, the next model request carries the "
        "thread's base instructions a second time, inside a <model_switch> developer message.",
        (Sign("model-switch-sends-base-once", {"base_in_model_switch_block": True}),),
    ),
    Watched(
        "openai/codex#19045",
        "thread/resume and thread/fork ignore developerInstructions override on first resumed turn",
        "The first turn after thread/resume in a new app-server process, or after "
        "thread/fork, given new developerInstructions sends the model the thread's old "
        "developer instructions and not the new ones.",
        (
            Sign("resume-refresh-cold", {"new_developer_seen": False}),
            Sign("fork-refresh", {"new_developer_seen": False}),
        ),
    ),
    Watched(
        "openai/codex#40805",
        "turn/steer can succeed without persisting input while sampling is in flight",
        "turn/steer answers with the active turn while the model's answer is in flight, yet "
        "the steered input becomes an item only after that answer has completed: until then "
        "it is only queued.",
        (
            Sign(
                "steer-in-flight-reaches-the-turn",
                {"accepted": True, "item_before_the_in_flight_answer_ended": False},
            ),
        ),
    ),
    Watched(
        "openai/codex#28495",
        "app-server: compaction completes server-side but turn/completed is never delivered "
        "to the JSON-RPC client",
        "After thread/compact/start, codex asks the model for the compaction and completes "
        f"its contextCompaction item, but no turn/completed follows within {WAITED}.",
        (Sign("compaction-turn-completes", {"turn_completed": False}),),
    ),
    Watched(
        "openai/codex#35810",
        "Codex App Server 0.145.0: tool-enabled turns never emit turn/completed after all "
        "tool results are finalized",
        "A turn in which the model called exec_command, whose command ran and whose output "
        f"went back to the model, sends no turn/completed within {WAITED} of taking its input.",
        (Sign("tool-call-turn-completes", {"turn_completed": False}),),
    ),
    Watched(
        "openai/codex#45361",
        "app-server: any per-thread config override on thread/start makes subsequent turns "
        "hang (0.154.0)",
        "A turn of a thread started with a per-thread config override "
        f"(model_reasoning_effort) sends no turn/completed within {WAITED} of taking its input.",
        (Sign("start-config-runs-turns", {"turn_completed": False}),),
    ),
    Watched(
        "openai/codex#31438",
        "Expose structured error data for turn/steer no-active-turn and turn-id mismatch failures",
        "turn/steer refused for want of an active turn, or for an expectedTurnId that is not "
        "the active turn, carries no JSON-RPC error data: the reason is in the message's "
        "words only.",
        (
            Sign("error-steer-no-active-turn", {"refused": True, "data": None}),
            Sign("error-steer-wrong-turn", {"refused": True, "data": None}),
        ),
    ),
)

BY_ISSUE = {watched.issue: watched for watched in WATCHED}
# Every finding the watch list reads, in the list's order.
WATCH_FINDINGS: tuple[str, ...] = tuple(
    dict.fromkeys(finding for watched in WATCHED for finding in watched.findings)
)


@dataclass(frozen=True)
class IssueState:
    """A watched issue on one release: present, absent, or broken (undecided) and why,
    with the verdict of each finding it read."""

    issue: str
    state: State
    why: str
    findings: dict[str, str] = field(default_factory=dict)  # finding id -> its verdict

    def to_json(self) -> dict[str, Any]:
        return {
            "issue": self.issue,
            "state": self.state.value,
            "why": self.why,
            "findings": dict(self.findings),
        }


def sign_state(sign: Sign, entry: Mapping[str, Any] | None) -> tuple[State, str]:
    """What one sign says on a release, given its finding's entry (None: not judged)."""
    if entry is None:
        return State.BROKEN, f"{sign.finding} was not probed on this release"
    verdict = str(entry.get("verdict"))
    observed = entry.get("observed")
    if verdict not in JUDGED or not isinstance(observed, Mapping):
        said = str(entry.get("summary") or "").strip()
        return State.BROKEN, f"{sign.finding} is {verdict}" + (f": {said}" if said else "")
    if sign.shows(observed):
        return State.PRESENT, f"{sign.describe()}"
    seen = ", ".join(f"{key} = {observed.get(key)!r}" for key in sign.values)
    return State.ABSENT, f"{sign.finding}: {seen}"


def issue_state(watched: Watched, entries: Mapping[str, Mapping[str, Any]]) -> IssueState:
    """One watched issue on one release, from that release's finding entries."""
    said = [(sign, *sign_state(sign, entries.get(sign.finding))) for sign in watched.signs]
    verdicts = {
        finding: str(entries[finding].get("verdict")) if finding in entries else "missing"
        for finding in watched.findings
    }
    present = [why for _, state, why in said if state is State.PRESENT]
    broken = [why for _, state, why in said if state is State.BROKEN]
    if present:
        return IssueState(watched.issue, State.PRESENT, "; ".join(present), verdicts)
    if broken:
        return IssueState(watched.issue, State.BROKEN, "; ".join(broken), verdicts)
    absent = "; ".join(why for _, _, why in said)
    return IssueState(watched.issue, State.ABSENT, absent, verdicts)


def issue_states(entries: Mapping[str, Mapping[str, Any]]) -> dict[str, IssueState]:
    """Every watched issue on one release, from its finding entries as verdict.json (under
    versions.VERSION) or history.json (a release's findings) hold them: {id: {"verdict",
    "observed", "summary"?}}. An issue whose findings are missing or broken is broken,
    with the reason."""
    return {watched.issue: issue_state(watched, entries) for watched in WATCHED}


def upstream_of(finding: str, verdict: str, observed: Mapping[str, Any]) -> list[dict[str, str]]:
    """A finding's `upstream` field: each watched issue it decides, with the state it shows
    (present when any of its signs on this finding shows; none unless it was judged)."""
    if verdict not in JUDGED:
        return []
    decided: dict[str, str] = {}
    for watched in WATCHED:
        signs = [sign for sign in watched.signs if sign.finding == finding]
        if signs:
            shown = any(sign.shows(observed) for sign in signs)
            decided[watched.issue] = (State.PRESENT if shown else State.ABSENT).value
    return [{"issue": issue, "state": state} for issue, state in decided.items()]


@dataclass(frozen=True)
class StateChange:
    """Where a watched issue's decided state changed between two releases of a range."""

    issue: str
    version: str  # the release where it changed
    previous: str  # the last release before it with a decided state
    before: State
    after: State

    @classmethod
    def of(
        cls, issue: str, version: str, previous: str, before: Any, after: Any
    ) -> StateChange | None:
        """The change a recorded change point says (its before and after as the words of
        State: a history's `watch` change point); None unless they are two decided states
        that differ."""
        decided = (State.PRESENT.value, State.ABSENT.value)
        if before == after or not all(isinstance(s, str) and s in decided for s in (before, after)):
            return None
        return cls(issue, version, previous, State(before), State(after))

    @property
    def kind(self) -> str:
        """ "fixed" (present, then absent) or "back" (absent, then present)."""
        return "fixed" if self.after is State.ABSENT else "back"

    @property
    def said(self) -> str:
        """ "fixed in X" or "back in X": the words every report of a change uses."""
        return f"{self.kind} in {self.version}"

    @property
    def was(self) -> str:
        """ "present in W": the state before it, and the last release that had it."""
        return f"{self.before.value} in {self.previous}"

    def describe(self) -> str:
        return f"{self.issue} {self.said} ({self.was})"

    def to_json(self) -> dict[str, str]:
        return {
            "issue": self.issue,
            "kind": self.kind,
            "version": self.version,
            "previous": self.previous,
            "before": self.before.value,
            "after": self.after.value,
        }


def state_changes(by_release: Sequence[tuple[str, Mapping[str, IssueState]]]) -> list[StateChange]:
    """Each change of a watched issue's decided state along `by_release` (oldest first):
    "fixed in X" where it went from present to absent, "back in X" from absent to present.
    A release where it is broken is passed over (it says nothing either way)."""
    changes = []
    for watched in WATCHED:
        last: tuple[str, State] | None = None
        for version, states in by_release:
            found = states.get(watched.issue)
            if found is None or found.state is State.BROKEN:
                continue
            if last is not None and last[1] is not found.state:
                changes.append(StateChange(watched.issue, version, last[0], last[1], found.state))
            last = (version, found.state)
    return changes
