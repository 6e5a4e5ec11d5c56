"""The scenarios the probes run, each a short story of steps on one thread.

Instruction texts and user texts carry markers (`CODEX-PROBE-BASE-V1`, ...) so the
observation can say where each one reached the model. Scenarios are independent:
each runs in its own home, with its own wiretap, on each backend.
"""

from __future__ import annotations

from typing import Any

from codex_probe.harness.codex.appserver import CLIENT_NAME, CLIENT_VERSION
from codex_probe.harness.driver.params import text_input
from codex_probe.probes.domain.reading import marker
from codex_probe.probes.domain.surface.release import (
    EXPERIMENTAL_WITH,
    EXPERIMENTAL_WITHOUT,
    INITIALIZE_WITH_EXPERIMENTAL,
)
from codex_probe.probes.runner.steps import Scenario, ScenarioRun
from codex_probe.rig.homes import OPENAI_PROVIDER_NAME
from codex_probe.rig.replies import Reply

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
    await run.attempt("thread/start", experimental, EXPERIMENTAL_WITHOUT)
    await run.restart(initialize=False)
    await run.attempt("thread/start", {"cwd": str(run.home.workdir)}, "before-initialize")
    client = {"clientInfo": {"name": CLIENT_NAME, "version": CLIENT_VERSION}}
    declared = {**client, "capabilities": {"experimentalApi": True}}
    await run.attempt("initialize", declared, INITIALIZE_WITH_EXPERIMENTAL)
    await run.rpc.notify("initialized")
    await run.attempt("initialize", client, "initialize-again")
    await run.attempt(UNKNOWN_METHOD, {}, "unknown-method")
    await run.attempt("thread/start", experimental, EXPERIMENTAL_WITH)


async def remote_compaction(run: ScenarioRun) -> None:
    await run.start("A", **instructions("V1"))
    await run.turn("A", user("1"), "turn-1")
    await run.compact("A", "compact")
    await run.turn("A", user("2"), "turn-2")


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
}
# How a scenario's home differs from the default one.
SCENARIO_HOMES: dict[str, dict[str, Any]] = {
    # codex compacts remotely for a provider named "OpenAI" (docs/observations/).
    "compaction-remote": {"provider_name": OPENAI_PROVIDER_NAME},
}
