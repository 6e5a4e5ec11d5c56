"""Fault schedules for the driver's fault campaign: what they are, their file, their strategy.

A schedule is one scenario for the reference driver on the fake app-server: which
codex version the fake imitates, which session id `prepare_initial_thread` gets
(none, a thread of an earlier process, an unknown id, a malformed id), whether the
developer instructions are blank, how long the model takes to answer, which later
messages follow (and at which boundary), and the fault rules of the fake's script.

Its file is the fake's own JSON Lines script with the scenario in a leading comment
line, so the same file both replays the campaign example
(`python -m tests.driver.replay FILE`) and drives the fake by hand
(`fake-codex --script FILE app-server`, which skips `#` lines):

    # codex-probe fault schedule: {"profile": "0.171.0", "session": "existing", ...}
    {"method": "turn/start", "call": 1, "action": "vanish"}
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

HEADER = "# codex-probe fault schedule: "

PROFILES = ("0.171.0", "0.120.0")
SESSIONS = ("none", "existing", "missing", "malformed")
# The session id of each kind but "existing" (a thread the campaign seeds per profile).
MISSING_SESSION_ID = "11111111-2222-4333-8444-555555555555"
MALFORMED_SESSION_ID = "not-a-thread-id"
# Boundaries a later message waits for before it is delivered:
#   now         deliver at once (a turn may be running: the driver steers)
#   after_turn  the driver waits for its turn to complete, delivers what it held, then sends
#   race        someone else consumes the turn's completion, so the driver still believes
#               the turn active and steers into a turn that is over
WHENS = ("now", "after_turn", "race")
METHODS = ("thread/start", "thread/resume", "turn/start", "turn/steer")
ACTIONS = (
    "error",
    "hang",
    "delay",
    "crash",
    "malformed",
    "close_stdout",
    "vanish",
    "never_complete",
)
GHOST = "99999999-8888-4777-8666-555555555555"
# Error answers a fault may give: the refusals measured on codex-cli 0.120.0/0.171.0
# (codex_probe/harness/driver/refusals.py), the same words under another code, and other codes.
ERRORS: dict[str, tuple[int, str]] = {
    "no_rollout": (-32600, f"no rollout found for thread id {GHOST}"),
    "thread_not_found": (-32600, f"thread not found: {GHOST}"),
    "invalid_session_id": (
        -32600,
        "invalid session id: invalid length: expected length 32 for simple format, found 15",
    ),
    "invalid_thread_id": (
        -32600,
        "invalid thread id: invalid character: expected an optional prefix of `urn:uuid:` "
        "followed by [0-9a-fA-F-], found `n` at 1",
    ),
    "no_active_turn": (-32600, "no active turn to steer"),
    "other_turn_active": (-32600, "expected active turn id `turn-a` but found `turn-b`"),
    "compact_turn": (-32600, "cannot steer a compact turn"),
    "review_turn": (-32600, "cannot steer a review turn"),
    "unknown_variant": (
        -32600,
        "Invalid request: unknown variant `bogus`, expected one of `read-only`, "
        "`workspace-write`, `danger-full-access`",
    ),
    "not_found_as_internal": (-32603, f"thread not found: {GHOST}"),
    "internal": (-32603, "internal error: failed to load rollout"),
    "too_large": (-32602, "Input exceeds the maximum length"),
    "overloaded": (-32001, "Server overloaded; retry later."),
}
# Below and above the campaign's request timeout (campaign.REQUEST_TIMEOUT).
DELAYS = (0.05, 0.6)
EXIT_CODES = (101, 1)
# First (the most drawn): long enough that a message sent at once steers the turn.
ANSWER_DELAYS = (0.05, 0.0, 0.15)
# What the model does in each turn (campaign.model_replies):
#   text                  it answers (after answer_delay)
#   tool_call             it calls exec_command, then answers once the call's output is back
#   tool_call_then_held   it calls exec_command, then holds its answer past every deadline:
#                         a tool-call turn that never completes
MODELS = ("text", "tool_call", "tool_call_then_held")


class ScheduleFileError(ValueError):
    """A schedule file that cannot be read; the message names the problem."""


@dataclass(frozen=True)
class FaultRule:
    method: str
    action: str
    call: int | None = None  # 1-based count of that method's requests; None: every call
    error: str = ""  # a key of ERRORS, for action "error"
    seconds: float = 0.0  # for action "delay"
    exit_code: int = 101  # for action "crash"

    def to_json(self) -> dict[str, Any]:
        """The rule as the fake's script reads it (codex_probe/fake_appserver/script.py)."""
        rule: dict[str, Any] = {"method": self.method}
        if self.call is not None:
            rule["call"] = self.call
        rule["action"] = self.action
        if self.action == "error":
            rule["code"], rule["message"] = ERRORS[self.error]
        elif self.action == "delay":
            rule["seconds"] = self.seconds
        elif self.action == "crash":
            rule["exit_code"] = self.exit_code
        return rule

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> FaultRule:
        action = raw["action"]
        error = ""
        if action == "error":
            answer = (raw["code"], raw["message"])
            error = next((name for name, known in ERRORS.items() if known == answer), "")
            if not error:
                raise ScheduleFileError(f"an error answer the campaign does not know: {raw!r}")
        return cls(
            method=raw["method"],
            action=action,
            call=raw.get("call"),
            error=error,
            seconds=float(raw.get("seconds", 0.0)),
            exit_code=int(raw.get("exit_code", 101)),
        )


@dataclass(frozen=True)
class LaterMessage:
    when: str  # one of WHENS
    blank: bool = False  # a whitespace-only body: the driver must send nothing


@dataclass(frozen=True)
class Schedule:
    profile: str = "0.171.0"
    session: str = "none"
    blank_developer: bool = False
    answer_delay: float = 0.0  # how long the wiretap holds each model answer
    messages: tuple[LaterMessage, ...] = ()
    faults: tuple[FaultRule, ...] = ()
    model: str = "text"  # one of MODELS

    def body(self, index: int) -> str:
        """The exact body of later message `index` (unique, with spacing to keep)."""
        if self.messages[index].blank:
            return " \n\t" + " " * index  # whitespace only, still unique
        return f"LATER-MESSAGE-{index}: exact body {index}\n  keep  this spacing  "

    def to_jsonl(self) -> str:
        scenario = {
            "profile": self.profile,
            "session": self.session,
            "blank_developer": self.blank_developer,
            "answer_delay": self.answer_delay,
            "messages": [{"when": m.when, "blank": m.blank} for m in self.messages],
            "model": self.model,
        }
        lines = [HEADER + json.dumps(scenario)]
        lines += [json.dumps(rule.to_json()) for rule in self.faults]
        return "".join(line + "\n" for line in lines)

    @classmethod
    def from_jsonl(cls, text: str) -> Schedule:
        lines = [line for line in text.splitlines() if line.strip()]
        if not lines or not lines[0].startswith(HEADER):
            raise ScheduleFileError(f"the first line must start with {HEADER.strip()!r}")
        try:
            scenario = json.loads(lines[0][len(HEADER) :])
            faults = tuple(
                FaultRule.from_json(json.loads(line))
                for line in lines[1:]
                if not line.lstrip().startswith("#")
            )
            schedule = cls(
                profile=scenario["profile"],
                session=scenario["session"],
                blank_developer=bool(scenario["blank_developer"]),
                answer_delay=float(scenario["answer_delay"]),
                messages=tuple(
                    LaterMessage(m["when"], bool(m["blank"])) for m in scenario["messages"]
                ),
                faults=faults,
                model=str(scenario.get("model", "text")),  # files from before it: text
            )
        except (ValueError, KeyError, TypeError) as error:
            raise ScheduleFileError(f"not a fault schedule: {error}") from None
        if schedule.profile not in PROFILES or schedule.session not in SESSIONS:
            raise ScheduleFileError(f"unknown profile or session kind in {scenario!r}")
        if schedule.model not in MODELS:
            raise ScheduleFileError(f"unknown model {schedule.model!r}; one of {MODELS}")
        return schedule


# The errors each method is most likely to meet, so that most error rules hit a branch;
# any other error may still be drawn for any method.
NATURAL_ERRORS: dict[str, tuple[str, ...]] = {
    "thread/resume": ("no_rollout", "invalid_session_id", "not_found_as_internal", "internal"),
    "turn/start": ("thread_not_found", "invalid_thread_id", "not_found_as_internal", "too_large"),
    "turn/steer": ("compact_turn", "no_active_turn", "other_turn_active", "review_turn"),
    "thread/start": ("internal", "unknown_variant", "overloaded", "thread_not_found"),
}


# The methods a prepare sends first, by session kind: one rule of each schedule aims at
# one of them, so that every example tests the fallback rules, not only the later ones.
PREPARE_METHODS: dict[str, tuple[str, ...]] = {
    "none": ("thread/start", "turn/start"),
    "existing": ("turn/start", "thread/resume"),
    "missing": ("thread/resume", "thread/start", "turn/start"),
    "malformed": ("thread/resume", "thread/start", "turn/start"),
}


LATER_METHODS = ("turn/steer", "turn/start", "turn/steer", "turn/start", *METHODS)
STEER_CALLS = (1, 2, 1, 3, None)


@st.composite
def fault_rules(
    draw: st.DrawFn,
    methods: tuple[str, ...] = (*METHODS, "thread/resume", "turn/start", "turn/steer"),
    calls: tuple[int | None, ...] = (1, 2, 3, 1, 2, None),
) -> FaultRule:
    # Repeats weight a draw (sampled_from is uniform and shrinks towards the front):
    # thread/start has one way to fail a prepare, the others several; errors are the
    # richest action; early calls are the ones every schedule reaches.
    method = draw(st.sampled_from(methods))
    # A steer's error answers are what fill the continuation inbox: more of them.
    errors_first = ("error",) * (3 if method == "turn/steer" else 1)
    action = draw(st.sampled_from((*errors_first, "vanish", *ACTIONS)))
    # Steers come only with later messages: their count starts there, at 1.
    call = draw(st.sampled_from(STEER_CALLS if method == "turn/steer" else calls))
    error = ""
    if action == "error":
        error = draw(
            st.one_of(
                st.sampled_from(NATURAL_ERRORS[method]),
                st.sampled_from(NATURAL_ERRORS[method]),
                st.sampled_from(sorted(ERRORS)),
            )
        )
    return FaultRule(
        method=method,
        action=action,
        call=call,
        error=error,
        seconds=draw(st.sampled_from(DELAYS)) if action == "delay" else 0.0,
        exit_code=draw(st.sampled_from(EXIT_CODES)) if action == "crash" else 101,
    )


@st.composite
def schedules(draw: st.DrawFn) -> Schedule:
    """Schedules small enough to run in well under a second each, mostly: one to four
    rules; in about half of them, the first aims at a request the prepare sends."""
    session = draw(st.sampled_from(("existing", *SESSIONS)))
    aimed = draw(
        st.lists(fault_rules(methods=PREPARE_METHODS[session], calls=(1, 1, None)), max_size=1)
    )
    # The others mostly aim at the later messages' turn/steer and turn/start (whose
    # first call is usually the prepare's).
    others = draw(
        st.lists(
            fault_rules(methods=LATER_METHODS, calls=(2, 1, 3, 2, 4, None)),
            min_size=1 - len(aimed),
            max_size=3,
        )
    )
    messages = draw(
        st.lists(
            st.builds(
                LaterMessage,
                when=st.sampled_from((*WHENS, "now")),
                blank=st.sampled_from((False,) * 7 + (True,)),
            ),
            max_size=3,
        )
    )
    return Schedule(
        profile=draw(st.sampled_from(PROFILES)),
        session=session,
        blank_developer=draw(st.sampled_from((False, False, False, True))),
        answer_delay=draw(st.sampled_from(ANSWER_DELAYS)),
        messages=tuple(messages),
        faults=(*aimed, *others),
        # Text first (what shrinking goes to); a tool call in about half the schedules.
        model=draw(st.sampled_from(("text", "tool_call", "text", "tool_call_then_held"))),
    )
