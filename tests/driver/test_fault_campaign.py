"""The driver's fault campaign: generated fault schedules over the fake app-server.

Each example spawns the fake with a generated fault script (errors, hangs, delays,
crashes, garbled frames, a closed stdout, vanished threads, turns that never end, at
any call of thread/start, thread/resume, turn/start and turn/steer), drives the
reference driver through prepare_initial_thread and later messages, and checks the
driver's rules on what the fake got and what reached the model: campaign.py runs a
schedule, invariants.py states and checks the rules, schedules.py generates them.

Profiles (CODEX_PROBE_FAULT_PROFILE picks one; CODEX_PROBE_FAULT_EXAMPLES overrides
the count):
  fault-campaign       the test command: 300 examples, derandomized, no database. The
                       same examples on every run, so a red build is the driver's doing
                       and reproduces, never a new random draw on an unrelated change.
  fault-campaign-deep  `nox -s fault_campaign`: 3000 random examples, failures kept in
                       the example database and replayed first next time: exploration.
The examples are shared out over PARTS tests, each drawing its share from a seed of its
own (derandomized: the part's number): an example mostly waits on the fake (hangs, short
deadlines), so parts on separate xdist workers overlap those waits.
A failure prints the schedule and one command that replays it (tests/driver/replay.py).
"""

from __future__ import annotations

import itertools
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import event, example, given, seed, settings

from codex_probe.fake_appserver.script import load_script
from codex_probe.harness.dispatcher import StartConfig
from codex_probe.harness.driver import (
    CodexAppServerDriver,
    Delivery,
    DeliveryOutcomeUnknown,
    InitialThread,
    PrepareFailed,
)
from codex_probe.harness.jsonrpc.errors import ServerError, TransportError
from tests.driver.campaign import Seeds, run_example
from tests.driver.invariants import check_invariants, describe, path_labels
from tests.driver.replay import REPO_ROOT, replay_command, save_schedule
from tests.driver.schedules import FaultRule, LaterMessage, Schedule, schedules

# deadline=None: an example spawns the fake and waits out scripted hangs (up to a few
# seconds), so hypothesis's per-example deadline would only measure the machine. No
# health check is suppressed: they time data generation, which takes a millisecond.
settings.register_profile(
    "fault-campaign", max_examples=300, derandomize=True, database=None, deadline=None
)
settings.register_profile("fault-campaign-deep", max_examples=3000, deadline=None)
PROFILE = os.environ.get("CODEX_PROBE_FAULT_PROFILE", "fault-campaign")
EXAMPLES = int(
    os.environ.get("CODEX_PROBE_FAULT_EXAMPLES", settings.get_profile(PROFILE).max_examples)
)
PARTS = 4
CAMPAIGN_PART = settings(settings.get_profile(PROFILE), max_examples=math.ceil(EXAMPLES / PARTS))


@dataclass
class Campaign:
    folder: Path
    seeds: Seeds
    numbers: Iterator[int]

    def example_folder(self) -> Path:
        return self.folder / f"example-{next(self.numbers)}"


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    folder = tmp_path_factory.mktemp("fault-campaign")
    return Campaign(folder, Seeds(folder / "seeds"), itertools.count(1))


def failure_report(schedule: Schedule, violations: list[str], run_text: str, path: Path) -> str:
    return "\n".join(
        [
            f"{len(violations)} driver rule(s) broken:",
            *(f"  {v}" for v in violations),
            "schedule:",
            schedule.to_jsonl().rstrip("\n"),
            run_text,
            f"schedule file: {path}",
            f"Reproduce with: {replay_command(path)}",
        ]
    )


# Schedules pinned because they broke a rule once, or reach a branch rarely drawn; they
# run first, in every profile.
HELD_THEN_SETTLE_TIMES_OUT = Schedule(
    # A held body goes out at the boundary into a turn that never completes: settle
    # timed out and the body's Delivery record was lost (fixed: SettleFailed carries it).
    messages=(LaterMessage("now"),),
    answer_delay=0.15,
    faults=(
        FaultRule("turn/steer", "error", call=1, error="compact_turn"),
        FaultRule("turn/start", "never_complete", call=2),
    ),
)
STEER_RACE_THEN_CRASH = Schedule(
    # The steer race's new turn dies with the server: the unknown outcome was reported
    # against the refused turn/steer (fixed: against the turn/start that was lost).
    session="existing",
    messages=(LaterMessage("race"), LaterMessage("now")),
    answer_delay=0.05,
    faults=(FaultRule("turn/start", "crash", call=2),),
)
TWO_HELD_IN_ONE_BOUNDARY_TURN = Schedule(
    # A mismatch naming a turn that does not exist, then the real one: both bodies go
    # out in one turn/start at the boundary (the campaign's own check once missed them
    # in the model's input, where the fake joins the items into one text).
    session="existing",
    messages=(LaterMessage("now"), LaterMessage("now")),
    answer_delay=0.05,
    faults=(FaultRule("turn/steer", "error", call=1, error="other_turn_active"),),
)
VANISHED_BEFORE_FIRST_DELIVERY = Schedule(
    session="existing", faults=(FaultRule("turn/start", "vanish", call=1),)
)


STEERED_DURING_A_TOOL_CALL = Schedule(
    # A message sent at once steers a turn whose model is calling a tool; another waits
    # for the turn's end: both reach the model in that turn or the next, once each.
    session="existing",
    messages=(LaterMessage("now"), LaterMessage("after_turn")),
    answer_delay=0.05,
    model="tool_call",
)
TOOL_CALL_TURN_NEVER_COMPLETES = Schedule(
    # The call is answered, then the model's answer never comes: the turn never ends.
    # The message waiting for its end gives up at its deadline and stays held; settle
    # gives up at its own; nothing is sent twice, nothing is lost.
    messages=(LaterMessage("after_turn"), LaterMessage("now")),
    model="tool_call_then_held",
)
REFUSED_RESUME_THEN_TOOL_CALL = Schedule(
    # The one fallback, then a fresh thread whose first turn calls a tool.
    session="missing",
    messages=(LaterMessage("race"),),
    model="tool_call",
    faults=(FaultRule("turn/steer", "error", call=1, error="no_active_turn"),),
)


PINNED = (
    (HELD_THEN_SETTLE_TIMES_OUT, "discovered failure"),
    (STEER_RACE_THEN_CRASH, "discovered failure"),
    (TWO_HELD_IN_ONE_BOUNDARY_TURN, "discovered failure"),
    (VANISHED_BEFORE_FIRST_DELIVERY, "the first-delivery fallback"),
    (STEERED_DURING_A_TOOL_CALL, "a steer into a tool-call turn"),
    (TOOL_CALL_TURN_NEVER_COMPLETES, "a tool-call turn that never completes"),
    (REFUSED_RESUME_THEN_TOOL_CALL, "a fallback thread whose turn calls a tool"),
)


def keeps_the_rules(campaign: Campaign, schedule: Schedule) -> None:
    folder = campaign.example_folder()
    run = run_example(schedule, folder, campaign.seeds)
    for label in path_labels(run):
        event(label)
    violations = check_invariants(run)
    if violations:
        path = save_schedule(schedule, run)
        raise AssertionError(failure_report(schedule, violations, describe(run), path))
    shutil.rmtree(folder, ignore_errors=True)


def campaign_part(part: int) -> Callable[..., None]:
    """Part `part` of the campaign: its share of the examples; the pinned ones run in part 1."""

    def test(campaign: Campaign, schedule: Schedule) -> None:
        keeps_the_rules(campaign, schedule)

    test = given(schedule=schedules())(test)
    if part == 1:
        for schedule, why in reversed(PINNED):
            test = example(schedule=schedule).via(why)(test)
    if CAMPAIGN_PART.derandomize:
        # The same examples on every run, a different draw per part (derandomize alone
        # would give every part the same draw: they share their source). In the deep
        # profile the parts draw at random and share the example database: a failure one
        # part found is replayed by all four.
        test = seed(part)(test)
    return CAMPAIGN_PART(test)


for _part in range(1, PARTS + 1):
    globals()[
        f"test_the_driver_keeps_its_fallback_and_delivery_rules_under_any_fault_schedule_{_part}"
        f"_of_{PARTS}"
    ] = campaign_part(_part)


# ----- the campaign's own machinery ------------------------------------------------------


@given(schedule=schedules())
def test_a_schedule_file_round_trips_and_is_a_fake_fault_script(
    tmp_path_factory: pytest.TempPathFactory, schedule: Schedule
) -> None:
    assert Schedule.from_jsonl(schedule.to_jsonl()) == schedule
    path = tmp_path_factory.mktemp("script") / "schedule.jsonl"
    path.write_text(schedule.to_jsonl(), encoding="utf-8")
    rules = load_script(path).rules
    assert [(r.method, r.action, r.call) for r in rules] == [
        (f.method, f.action, f.call) for f in schedule.faults
    ]


def test_the_printed_command_replays_a_saved_schedule(tmp_path: Path) -> None:
    schedule = Schedule(
        session="missing",
        messages=(LaterMessage("now"),),
        faults=(FaultRule("turn/steer", "error", call=1, error="compact_turn"),),
    )
    path = tmp_path / "schedule.jsonl"
    path.write_text(schedule.to_jsonl(), encoding="utf-8")
    command = replay_command(path)
    assert command.startswith(f"cd {REPO_ROOT} && ")
    done = subprocess.run(
        [sys.executable, "-m", "tests.driver.replay", str(path), "--out", str(tmp_path / "out")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,  # a replay's start and run on a loaded machine: longer, never a failure
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every rule held" in done.stdout
    assert "thread/resume" in done.stdout and "thread/start" in done.stdout
    assert (tmp_path / "out" / "run.transcript.jsonl").read_text().strip()


# ----- the rules have teeth: broken drivers are caught ------------------------------------


class FallsBackOnATimeout(CodexAppServerDriver):
    """Treats a resume with an unknown outcome as not found."""

    async def resume_thread(self, config: StartConfig, thread_id: str) -> str | None:
        try:
            return await super().resume_thread(config, thread_id)
        except TransportError as error:
            raise ServerError(
                method="thread/resume",
                request_id=0,
                code=-32600,
                message=f"no rollout found for thread id {thread_id}",
            ) from error


class ReplaysAnUnknownDelivery(CodexAppServerDriver):
    """Sends a message again when its first send had an unknown outcome."""

    async def deliver(self, thread_id: str, body: str) -> Delivery:
        try:
            return await super().deliver(thread_id, body)
        except DeliveryOutcomeUnknown:
            return await super().deliver(thread_id, body)


class FallsBackTwice(CodexAppServerDriver):
    """Starts a second fresh thread when the first one's turn is refused."""

    async def _start_fresh_thread_for_initial_turn(
        self, config: StartConfig, record: InitialThread
    ) -> None:
        try:
            await super()._start_fresh_thread_for_initial_turn(config, record)
        except PrepareFailed as failed:
            if not failed.outcome_known:
                raise
            await super()._start_fresh_thread_for_initial_turn(config, record)


class ForgetsTheDeveloperInstructions(CodexAppServerDriver):
    async def start_thread(self, config: StartConfig) -> str:
        return await super().start_thread(replace(config, developer_instructions=""))


# Each mutant runs with a request timeout of its own. Where a fault must time out (a hang,
# a delay), the delay is well past it; everywhere else the timeout is long, so that on a
# loaded machine no other call times out and turns the path the mutant breaks into
# "outcome unknown" (the campaign's 0.4 s once did, and second-fallback went uncaught).
PATIENT = 60.0
MUTANTS = [
    pytest.param(
        FallsBackOnATimeout,
        Schedule(session="missing", faults=(FaultRule("thread/resume", "hang", call=1),)),
        "[fallback]",
        3.0,
        id="fallback-on-timeout",
    ),
    pytest.param(
        ReplaysAnUnknownDelivery,
        Schedule(
            messages=(LaterMessage("after_turn"),),
            # The later message goes by turn/start once the first turn is over, or by a
            # steer while it still runs (under load it can): either way it times out.
            faults=(
                FaultRule("turn/start", "delay", call=2, seconds=8.0),
                FaultRule("turn/steer", "delay", call=1, seconds=8.0),
            ),
        ),
        "[replay]",
        3.0,
        id="replay-after-unknown",
    ),
    pytest.param(
        FallsBackTwice,
        Schedule(
            session="missing",
            faults=(FaultRule("turn/start", "error", call=1, error="thread_not_found"),),
        ),
        "[fallback]",
        PATIENT,
        id="second-fallback",
    ),
    pytest.param(
        ForgetsTheDeveloperInstructions,
        Schedule(session="malformed"),
        "[fresh]",
        PATIENT,
        id="fresh-thread-without-instructions",
    ),
]


@pytest.mark.parametrize(("mutant", "schedule", "rule", "request_timeout"), MUTANTS)
def test_the_campaign_catches_a_driver_that_breaks_a_rule(
    campaign: Campaign,
    mutant: type[CodexAppServerDriver],
    schedule: Schedule,
    rule: str,
    request_timeout: float,
) -> None:
    def run(driver_class: type[CodexAppServerDriver]) -> list[str]:
        folder = campaign.example_folder()
        return check_invariants(
            run_example(
                schedule,
                folder,
                campaign.seeds,
                driver_class=driver_class,
                request_timeout=request_timeout,
            )
        )

    assert run(CodexAppServerDriver) == []
    broken = run(mutant)
    assert any(v.startswith(rule) for v in broken), broken
