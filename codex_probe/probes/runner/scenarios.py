"""The scenarios the probes run, each a short story of steps on one thread.

Instruction texts and user texts carry markers (`CODEX-PROBE-BASE-V1`, ...) so the
observation can say where each one reached the model. Scenarios are independent:
each runs in its own home, with its own wiretap, on each backend.
"""

from __future__ import annotations

from typing import Any

from codex_probe.harness.codex.appserver import CLIENT_NAME, CLIENT_VERSION
from codex_probe.harness.driver.params import text_input
from codex_probe.probes.domain.expressions import item_notified
from codex_probe.probes.domain.reading import marker
from codex_probe.probes.domain.surface.release import (
    EXPERIMENTAL_WITH,
    EXPERIMENTAL_WITHOUT,
    INITIALIZE_WITH_EXPERIMENTAL,
)
from codex_probe.probes.runner.steps import Completion, Requirement, Scenario, ScenarioRun
from codex_probe.rig.homes import DEFAULT_MODEL, OPENAI_PROVIDER_NAME
from codex_probe.rig.replies import End, FunctionCall, Message, Reasoning, Reply, exec_command

UNKNOWN_THREAD_ID = "10192eed-8b3c-40de-bf2b-7a58e72ab0d1"
MALFORMED_THREAD_ID = "not-a-uuid"
UNKNOWN_METHOD = "codex-probe/no-such-method"
# A field of thread/start that 0.120.0 and 0.171.0 accept only from a client that declared
# the experimentalApi capability at initialize.
EXPERIMENTAL_FIELD = "experimentalRawEvents"
# A refusal takes milliseconds; 0.120.0 leaves an interrupt without a turn unanswered
# until a later turn is interrupted, and that silence must not cost the full deadline.
SILENCE_DEADLINE_S = 1.0
# Held while the scenario steers or starts into the turn; finish_turn lets it go.
ANSWER_ON_RELEASE = Reply(text="slow", delay_s=30.0, until_released=True)
# Held back longer than any step waits: the turn ends only when interrupted.
HELD_REPLY = Reply(text="held", delay_s=50.0)
# How long a turn the watch list reads (a tool call turn, a compaction, a turn after a
# config override) may take to send turn/completed once codex has its input: a turn
# against the wiretap takes well under a second here; one that has not completed by then
# is recorded as silent rather than breaking its scenario (steps.Completion).
COMPLETION_GRACE_S = 20.0
TAKES_INPUT = Completion(("item/completed", "userMessage"), COMPLETION_GRACE_S)
COMPACTS = Completion(("item/completed", "contextCompaction"), COMPLETION_GRACE_S)
# The model the model-switch scenario switches to (the rig's home names DEFAULT_MODEL).
SWITCHED_MODEL = f"{DEFAULT_MODEL}-switched"
# A command that outlives its call: codex answers the call with the output so far after
# yield_time_ms, the turn goes on, and the command's item completes after turn/completed,
# holding the marker it printed at its end (6 of 6 runs on 0.120.0 here; 0.120.0 and
# 0.150.0 put in the late item now all the output, now only what came after the call's
# answer: the marker comes after). A command that ends within its call would race
# 0.120.0's first read of it, which loses the item/completed of one still running then
# (3 of 6 runs of `sleep 0.6; echo X`, 5 of 32 of a fast echo under load:
# docs/observations/real-turns.md); and what a call's answer holds before yield_time_ms
# depends on the load. A verdict must not rest on a race.
TOOL_CALL = Reply(
    items=(exec_command(f"echo started; sleep 3; echo {marker('TOOL-OUTPUT')}", yield_time_ms=300),)
)
# What the scenario waits for after the turn: the item of the command that outlived it.
COMMAND_ENDED = ("item/completed", "commandExecution")
ANSWER_AFTER_TOOL = Reply(text=f"{marker('ANSWER-AFTER-TOOL')} done")
# An answer the scenario holds while it steers the turn (released by finish_turn).
HELD_ANSWER = Reply(text=f"{marker('ANSWER-HELD')} slow", delay_s=30.0, until_released=True)
# A per-thread config override on thread/start (openai/codex#45361 used this one).
CONFIG_OVERRIDE = {"model_reasoning_effort": "high"}


def base(tag: str) -> str:
    return f"{marker('BASE-' + tag)}: you are the probe agent; keep every answer short."


def developer(tag: str) -> str:
    return f"{marker('DEV-' + tag)}: the developer asks for plain text answers."


def instructions(tag: str) -> dict[str, str]:
    return {"baseInstructions": base(tag), "developerInstructions": developer(tag)}


def user(tag: str) -> str:
    return f"{marker('USER-' + tag)} please answer."


async def start_and_turns(run: ScenarioRun) -> None:
    await run.start("A", **instructions("V1"))
    await run.turn("A", user("1"), "turn-1")
    # The second answer streams in pieces, so agent message deltas are observed too.
    await run.turn("A", user("2"), "turn-2", reply=Reply(text="a streamed answer", deltas=3))


async def compaction(run: ScenarioRun) -> None:
    await run.start("A", **instructions("V1"))
    await run.turn("A", user("1"), "turn-1")
    await run.turn("A", user("2"), "turn-2")
    await run.compact("A", "compact")
    await run.turn("A", user("3"), "turn-3")


async def resume_loaded(run: ScenarioRun) -> None:
    await run.start("A", **instructions("V1"))
    await run.turn("A", user("1"), "turn-1")
    await run.resume("A", "resume", **instructions("V2"))
    await run.turn("A", user("2"), "turn-2")
    await run.compact("A", "compact")
    await run.turn("A", user("3"), "turn-3")


async def resume_cold(run: ScenarioRun) -> None:
    await run.start("A", **instructions("V1"))
    await run.turn("A", user("1"), "turn-1")
    await run.restart()
    await run.resume("A", "resume", **instructions("V2"))
    await run.turn("A", user("2"), "turn-2")
    await run.compact("A", "compact")
    await run.turn("A", user("3"), "turn-3")


async def resume_unsubscribed(run: ScenarioRun) -> None:
    await run.start("A", **instructions("V1"))
    await run.turn("A", user("1"), "turn-1")
    await run.unsubscribe("A", "unsubscribe")
    await run.resume("A", "resume", **instructions("V2"))
    await run.turn("A", user("2"), "turn-2")
    await run.compact("A", "compact")
    await run.turn("A", user("3"), "turn-3")


async def override_persistence(run: ScenarioRun) -> None:
    await run.start("A", **instructions("V1"))
    await run.turn("A", user("1"), "turn-1")
    await run.restart()
    await run.resume("A", "resume-override", **instructions("V2"))
    await run.turn("A", user("2"), "turn-2")
    await run.restart()
    await run.resume("A", "resume-plain")
    await run.turn("A", user("3"), "turn-3")
    await run.compact("A", "compact")
    await run.turn("A", user("4"), "turn-4")


async def resume_empty_developer(run: ScenarioRun) -> None:
    await run.start("A", **instructions("V1"))
    await run.turn("A", user("1"), "turn-1")
    await run.resume("A", "resume-loaded", baseInstructions=base("V1"), developerInstructions="")
    await run.turn("A", user("2"), "turn-2")
    await run.restart()
    await run.resume("A", "resume-cold", baseInstructions=base("V1"), developerInstructions="")
    await run.turn("A", user("3"), "turn-3")
    await run.compact("A", "compact")
    await run.turn("A", user("4"), "turn-4")


# (label, baseInstructions, developerInstructions); OMIT means the field is left out.
OMIT = object()
EMPTY_CASES: tuple[tuple[str, object, object], ...] = (
    ("both-set", base("E"), developer("E")),
    ("base-empty", "", developer("E")),
    ("base-null", None, developer("E")),
    ("base-omitted", OMIT, developer("E")),
    ("developer-empty", base("E"), ""),
    ("developer-null", base("E"), None),
    ("developer-omitted", base("E"), OMIT),
)


async def start_empty_and_omitted(run: ScenarioRun) -> None:
    for label, base_value, developer_value in EMPTY_CASES:
        fields = {}
        if base_value is not OMIT:
            fields["baseInstructions"] = base_value
        if developer_value is not OMIT:
            fields["developerInstructions"] = developer_value
        await run.start(label, **fields)
        await run.turn(label, user(label.upper()), f"turn-{label}")


LEGACY_PROMPT = (
    f"{marker('LEGACY-PROMPT')} You are probe-agent (legacy full prompt: identity, "
    "rules and reference manual in one user message). Current message: hello"
)


async def legacy_thread(run: ScenarioRun) -> None:
    await run.start("A")
    await run.turn("A", LEGACY_PROMPT, "turn-1")
    await run.restart()
    await run.resume("A", "resume", **instructions("V2"))
    await run.turn("A", user("2"), "turn-2")


async def errors(run: ScenarioRun) -> None:
    await run.attempt("thread/resume", {"threadId": UNKNOWN_THREAD_ID}, "resume-unknown")
    await run.attempt("thread/resume", {"threadId": MALFORMED_THREAD_ID}, "resume-malformed")
    await run.start("A", **instructions("V1"))
    await run.turn("A", user("1"), "turn-1")
    await run.restart()
    await run.attempt(
        "turn/start",
        {
            "threadId": run.threads["A"],
            "input": text_input(user("X")),
        },
        "turn-unloaded",
    )
    # A thread on disk but not loaded: every release answers it as notLoaded.
    await run.attempt("thread/read", {"threadId": run.threads["A"]}, "read-unloaded")
    await run.resume("A", "resume", **instructions("V1"))
    await run.steer("A", user("STEER-IDLE"), "steer-idle", expected_turn_id=UNKNOWN_THREAD_ID)
    await run.attempt(
        "turn/steer",
        {"threadId": run.threads["A"], "input": text_input(user("STEER-BARE"))},
        "steer-without-expected",
    )
    turn_id = await run.begin_turn("A", user("2"), "turn-2", ANSWER_ON_RELEASE)
    await run.steer("A", user("STEER-WRONG"), "steer-wrong", expected_turn_id="not-the-turn")
    await run.steer("A", user("STEER-RIGHT"), "steer-right", expected_turn_id=turn_id)
    await run.finish_turn("A", "turn-2-done")
    await turn_requests_around_an_active_turn(run)
    await reads_before_the_first_turn(run)


async def turn_requests_around_an_active_turn(run: ScenarioRun) -> None:
    """A second turn/start while a turn is active, then turn/interrupt with none active
    (left unanswered by some releases: the interrupt of a later turn shows what then)."""
    thread_id = run.threads["A"]
    turn_id = await run.begin_turn("A", user("3"), "turn-3", ANSWER_ON_RELEASE)
    await run.attempt(
        "turn/start", {"threadId": thread_id, "input": text_input(user("BUSY"))}, "turn-start-busy"
    )
    await run.finish_turn("A", "turn-3-done")
    await run.attempt(
        "turn/interrupt",
        {"threadId": thread_id, "turnId": turn_id},
        "interrupt-idle",
        deadline=SILENCE_DEADLINE_S,
    )
    held = await run.begin_turn("A", user("4"), "turn-4", HELD_REPLY)
    await run.attempt("turn/interrupt", {"threadId": thread_id, "turnId": held}, "interrupt-turn")
    await run.finish_turn("A", "turn-4-done")


async def reads_before_the_first_turn(run: ScenarioRun) -> None:
    """A thread that never had a turn: resumed (while loaded), then read with its turns."""
    await run.start("B")
    await run.attempt("thread/resume", {"threadId": run.threads["B"]}, "resume-before-turn")
    # The read goes last: on 0.171.0 a resume after this refused read is refused like it.
    await run.attempt(
        "thread/read", {"threadId": run.threads["B"], "includeTurns": True}, "read-before-turn"
    )


async def handshake(run: ScenarioRun) -> None:
    """The answers around initialize: before it, twice, and to a method codex lacks; and an
    experimental field asked for without the experimentalApi capability (the first process,
    initialized as every scenario's is, declares none) and with it (the initialize here
    declares it), on the two processes the scenario starts anyway."""
    experimental = {"cwd": str(run.home.workdir), EXPERIMENTAL_FIELD: True}
    # A thread started is announced before the process is stopped (the next step).
    await run.attempt("thread/start", experimental, EXPERIMENTAL_WITHOUT, announced=True)
    await run.restart(initialize=False)
    await run.attempt("thread/start", {"cwd": str(run.home.workdir)}, "before-initialize")
    client = {"clientInfo": {"name": CLIENT_NAME, "version": CLIENT_VERSION}}
    declared = {**client, "capabilities": {"experimentalApi": True}}
    await run.attempt("initialize", declared, INITIALIZE_WITH_EXPERIMENTAL)
    await run.rpc.notify("initialized")
    await run.attempt("initialize", client, "initialize-again")
    await run.attempt(UNKNOWN_METHOD, {}, "unknown-method")
    await run.attempt("thread/start", experimental, EXPERIMENTAL_WITH, announced=True)


async def remote_compaction(run: ScenarioRun) -> None:
    await run.start("A", **instructions("V1"))
    await run.turn("A", user("1"), "turn-1")
    await run.compact("A", "compact")
    await run.turn("A", user("2"), "turn-2")


async def model_switch(run: ScenarioRun) -> None:
    """A thread whose second turn asks for another model (turn/start's `model`)."""
    await run.start("A", **instructions("V1"))
    await run.turn("A", user("1"), "turn-1")
    await run.turn("A", user("2"), "turn-2", settings={"model": SWITCHED_MODEL})


async def tool_call(run: ScenarioRun) -> None:
    """A turn in which the model calls exec_command: codex runs it, sends its output back
    in the turn's next model request, and the model answers."""
    await run.start("A", **instructions("V1"))
    ran = Requirement(
        "the tool ran: its command printed the marker and ended",
        item_notified("item/completed", "commandExecution", "TOOL-OUTPUT"),
    )
    await run.turn(
        "A",
        user("1"),
        "turn-1",
        replies=(TOOL_CALL, ANSWER_AFTER_TOOL),
        completion=TAKES_INPUT,
        requires=(ran,),
        then=COMMAND_ENDED,
    )


async def fork(run: ScenarioRun) -> None:
    """A thread forked twice after its first turn: as it is, and with new instructions."""
    await run.start("A", **instructions("V1"))
    await run.turn("A", user("1"), "turn-1")
    await run.fork("A", "fork-plain", "F")
    await run.turn("F", user("FORK-PLAIN"), "turn-fork-plain")
    await run.fork("A", "fork-new", "G", **instructions("V2"))
    await run.turn("G", user("FORK-NEW"), "turn-fork-new")


async def compaction_turn(run: ScenarioRun) -> None:
    """A compaction whose turn/completed is observed, not required."""
    await run.start("A", **instructions("V1"))
    await run.turn("A", user("1"), "turn-1")
    finished = Requirement(
        "the compaction finished: its contextCompaction item completed",
        item_notified("item/completed", "contextCompaction"),
    )
    await run.compact("A", "compact", completion=COMPACTS, requires=(finished,))


async def steer_in_flight(run: ScenarioRun) -> None:
    """A steer while the model's answer is held in flight, then the answer let go."""
    await run.start("A", **instructions("V1"))
    turn_id = await run.begin_turn("A", user("1"), "turn-1", HELD_ANSWER)
    await run.steer("A", user("STEER"), "steer", expected_turn_id=turn_id)
    await run.finish_turn("A", "turn-1-done")


async def start_config(run: ScenarioRun) -> None:
    """thread/start with a per-thread `config` override, then a turn."""
    await run.start("A", **instructions("V1"), config=dict(CONFIG_OVERRIDE))
    await run.turn("A", user("1"), "turn-1", completion=TAKES_INPUT)


# The turn-kinds scenario: calls codex cannot carry out, streams that fail three ways, and
# commands put to the client. It runs no command that ends within its call (none is
# accepted): on 0.120.0 such a command races codex's first read of it.
UNKNOWN_TOOL = "codex_probe_no_such_tool"
BAD_ARGUMENTS = "not json"
UNRUNNABLE_CALLS = Reply(
    items=(FunctionCall(UNKNOWN_TOOL, "{}"), FunctionCall("exec_command", BAD_ARGUMENTS))
)
CUT_STREAM = Reply(
    items=(
        Reasoning((marker("REASONING"),)),
        Message(f"{marker('PARTIAL')} half an answer"),
        FunctionCall(UNKNOWN_TOOL, "{}"),
    ),
    end=End.CUT,
)
FAILED_STREAM = Reply(items=(Message("half an answer"),), end=End.FAILED)
DROPPED_STREAM = Reply(items=(Message("half an answer"),), end=End.DROPPED)
TOUCHED = "CODEX-PROBE-FILE"
ESCALATED_TOUCH = Reply(
    items=(
        exec_command(
            f"touch {TOUCHED}",
            sandbox_permissions="require_escalated",
            justification=marker("WHY"),
        ),
    )
)
PLAIN_TOUCH = Reply(items=(exec_command(f"touch {TOUCHED}"),))


async def turn_kinds(run: ScenarioRun) -> None:
    """Turns that are more than text, one of each kind learn reads the profile's `turns`
    section from: two calls codex cannot carry out; a stream cut off after reasoning, a
    message and a call, then a turn after it; a stream that fails; one dropped mid-body;
    an escalated command under on-request and a plain one under untrusted, both put to
    the client and declined (the session's default answer)."""
    await run.start("A", **instructions("V1"))
    await run.turn("A", user("CALLS"), "turn-calls", replies=(UNRUNNABLE_CALLS, Reply()))
    await run.turn("A", user("CUT"), "turn-cut", reply=CUT_STREAM)
    await run.turn("A", user("AFTER-CUT"), "turn-after-cut")
    await run.turn("A", user("FAILED"), "turn-failed", reply=FAILED_STREAM)
    await run.turn("A", user("DROPPED"), "turn-dropped", reply=DROPPED_STREAM)
    await run.start("B", approvalPolicy="on-request", **instructions("V1"))
    await run.turn("B", user("ESCALATED"), "turn-escalated", replies=(ESCALATED_TOUCH, Reply()))
    await run.start("C", approvalPolicy="untrusted", **instructions("V1"))
    await run.turn("C", user("UNTRUSTED"), "turn-untrusted", replies=(PLAIN_TOUCH, Reply()))


SCENARIOS: dict[str, Scenario] = {
    "start": start_and_turns,
    "compaction": compaction,
    "resume-loaded": resume_loaded,
    "resume-cold": resume_cold,
    "resume-unsubscribed": resume_unsubscribed,
    "override-persistence": override_persistence,
    "resume-empty-developer": resume_empty_developer,
    "start-empty": start_empty_and_omitted,
    "legacy-thread": legacy_thread,
    "errors": errors,
    "handshake": handshake,
    "compaction-remote": remote_compaction,
    "model-switch": model_switch,
    "tool-call": tool_call,
    "fork": fork,
    "compaction-turn": compaction_turn,
    "steer-in-flight": steer_in_flight,
    "start-config": start_config,
    "turn-kinds": turn_kinds,
}
# How a scenario's home differs from the default one.
SCENARIO_HOMES: dict[str, dict[str, Any]] = {
    # codex compacts remotely for a provider named "OpenAI" (docs/observations/).
    "compaction-remote": {"provider_name": OPENAI_PROVIDER_NAME},
}
