"""The conformance checks: stable ids, what each pins, and the spec section or rule it protects.

A test is one check: it carries `@pytest.mark.conformance_check("CONF-...")`, and the
id must be registered here. Ids never change meaning; a retired check keeps its id
out of use (RETIRED, with why). A check pins the protocol contract every client relies
on and the design claims nothing about: shapes, orders, the handshake, shutdown, schema
fit, lifecycle invariants. What the design claims is an assumption of the probes. The
baseline (codex_probe/conformance/baselines/) and reports key on these ids.
"""

from __future__ import annotations

from dataclasses import dataclass

MARKER = "conformance_check"


@dataclass(frozen=True)
class ConformanceCheck:
    id: str
    title: str
    # The spec section, driver rule or design rule that breaks if this check fails.
    protects: str
    # Checks that read what the whole run recorded run after every other check.
    runs_last: bool = False


_ALL_CHECKS = [
    ConformanceCheck(
        "CONF-HANDSHAKE-001",
        "initialize answers with the server's user agent, then requests are served",
        "DESIGN 'Real components': every session starts with initialize + initialized",
    ),
    ConformanceCheck(
        "CONF-HANDSHAKE-002",
        "a request before initialize is refused with -32600 'Not initialized'",
        "driver transport: the handshake must precede thread/start (spec 4.6 startThread)",
    ),
    ConformanceCheck(
        "CONF-HANDSHAKE-003",
        "a second initialize is refused with -32600 'Already initialized'",
        "driver transport: one handshake per process",
    ),
    ConformanceCheck(
        "CONF-SHUTDOWN-001",
        "closing stdin ends the server with exit code 0, no signal needed",
        "DESIGN 'Rules': shutdown closes stdin, waits, then signals; nothing outlives a test",
    ),
    ConformanceCheck(
        "CONF-THREAD-START-001",
        "thread/start answers an idle thread with an id, no turns and the binary's version",
        "spec 4.6 startThread: the driver reads result.thread.id",
    ),
    ConformanceCheck(
        "CONF-THREAD-START-002",
        "thread/started follows the thread/start response for the same thread",
        "spec 4.6 startThread; DESIGN: notifications are buffered until waited for",
    ),
    ConformanceCheck(
        "CONF-THREAD-START-004",
        'thread/start accepts "" and null instruction fields (string|null in the schema)',
        'spec 4.2 / 5.3 / 6.2: DeveloperInstructions "" expresses a cleared AGENTS.md',
    ),
    ConformanceCheck(
        "CONF-TURN-001",
        "turn/start answers an inProgress turn with an id and no items",
        "spec 4.6 prepareInitialThread / 4.7: the driver keeps the turn id",
    ),
    ConformanceCheck(
        "CONF-TURN-002",
        "a turn notifies turn/started, then its items, then turn/completed (completed)",
        "spec 4.6 EncodeStdinMessage: the next safe input boundary is turn/completed",
    ),
    ConformanceCheck(
        "CONF-TURN-003",
        "a turn's items: our userMessage and the model's agentMessage, each started then completed",
        "DESIGN 'One path': the observation pipeline reads items",
    ),
    ConformanceCheck(
        "CONF-STEER-001",
        "turn/steer on the active turn answers its id and the steered text reaches the model",
        "spec 4.6 EncodeStdinMessage: ack-aware delivery into an active turn",
    ),
    ConformanceCheck(
        "CONF-INTERRUPT-001",
        "turn/interrupt of the active turn answers {} and the turn completes 'interrupted'",
        "DESIGN: every turn the harness starts ends under a deadline",
    ),
    ConformanceCheck(
        "CONF-COMPACT-001",
        "thread/compact/start answers {}",
        "spec 5.1: manual compaction is how compaction safety is verified",
    ),
    ConformanceCheck(
        "CONF-COMPACT-002",
        "compaction runs as a turn holding one contextCompaction item and asks the model once",
        "spec 5.1 verification steps 2-3",
    ),
    ConformanceCheck(
        "CONF-RESUME-001",
        "thread/resume of a loaded thread answers it with its turns",
        "spec 4.6 resumeThread: a successful resume is followed by ResumePrompt",
    ),
    ConformanceCheck(
        "CONF-RESUME-002",
        "after a restart, thread/resume loads the thread from disk and it takes turns again",
        "spec 4.5 / 4.6: sessions survive daemon restarts by thread id",
    ),
    ConformanceCheck(
        "CONF-RESUME-006",
        "a thread that never had a turn resumes as not found, loaded or after a restart",
        "driver rule: a thread without a rollout falls back to a fresh thread (spec 4.5 #2)",
    ),
    ConformanceCheck(
        "CONF-RESUME-007",
        "resume and read of a thread with an active turn report it active, that turn inProgress",
        "spec 4.6 resolveTurnRequestForDirectDelivery: steer an active turn, else start one",
    ),
    ConformanceCheck(
        "CONF-READ-001",
        "thread/read with includeTurns returns the turns with their items; without, none",
        "spec 5.1 verification step 3: thread/read(includeTurns=true)",
    ),
    ConformanceCheck(
        "CONF-READ-002",
        "thread/read with includeTurns before the first turn is refused, not answered empty",
        "spec 5.1 verification: a read before the first user message has no history to show",
    ),
    ConformanceCheck(
        "CONF-UNSUBSCRIBE-001",
        "thread/unsubscribe answers 'unsubscribed' and the thread can be resumed afterwards",
        "spec 6.3 cutover: a connection lets go of a thread and may take it up again",
    ),
    ConformanceCheck(
        "CONF-UNSUBSCRIBE-002",
        "thread/unsubscribe of a thread that is not loaded answers 'notLoaded'",
        "DESIGN 'Rules': refusals are explicit answers, never silence",
    ),
    ConformanceCheck(
        "CONF-METHOD-001",
        "an unknown method is refused -32600 'Invalid request: unknown variant `m`, ...'",
        "driver rule: an unknown method is neither not-found nor invalid-thread",
    ),
    ConformanceCheck(
        "CONF-WIRE-SERVER-001",
        "every message the server sent fits this version's generated schema",
        "DESIGN 'Rules': the protocol schema comes from the binary under test",
        runs_last=True,
    ),
    ConformanceCheck(
        "CONF-WIRE-CLIENT-001",
        "every message our client sent fits this version's generated schema",
        "DESIGN 'Rules': the harness speaks the protocol of the version under test",
        runs_last=True,
    ),
    ConformanceCheck(
        "CONF-LIFECYCLE-001",
        "random thread and turn lifecycles keep the protocol invariants",
        "spec 4.5-4.7 as a whole: one answer per request, paired turns, legal statuses, "
        "a server that never exits on its own",
    ),
]

CONFORMANCE_CHECKS: dict[str, ConformanceCheck] = {check.id: check for check in _ALL_CHECKS}

# Checks no longer run, each id kept out of use, with the behaviour it pinned. Each is a
# claim of the design, which the probes judge (an assumption: holds, changed or broken per
# release, with history, bisect and a reproduction bundle); a behaviour is never checked
# on both sides (docs/ARCHITECTURE.md, "Which side a behaviour belongs to").
RETIRED: dict[str, str] = {
    "CONF-THREAD-START-003": "spec 5.2: both instruction fields reach the model",
    "CONF-TURN-004": "spec 4.5: turn/start on an unloaded thread, refused as not found",
    "CONF-TURN-005": "spec 4.6: turn/start during an active turn joins it",
    "CONF-STEER-002": "spec 4.6: turn/steer with no active turn, refused as such",
    "CONF-STEER-003": "spec 4.6: turn/steer naming another turn, refused as such",
    "CONF-INTERRUPT-002": "spec 4.6: turn/interrupt with no active turn, answered",
    "CONF-COMPACT-003": "spec 5.1: compaction keeps the start-time instructions",
    "CONF-RESUME-003": "spec 4.5: thread/resume of an unknown thread, refused as not found",
    "CONF-RESUME-004": "spec 4.5: thread/resume of a malformed id, refused as invalid",
    "CONF-RESUME-005": 'spec 5.3: thread/resume accepts the instruction fields, "" included',
}
assert not set(RETIRED) & set(CONFORMANCE_CHECKS), "a retired id is in use again"
assert len(CONFORMANCE_CHECKS) == len(_ALL_CHECKS), "duplicate conformance check id"


def get_check(check_id: str) -> ConformanceCheck:
    try:
        return CONFORMANCE_CHECKS[check_id]
    except KeyError:
        raise KeyError(f"unknown conformance check id {check_id!r}") from None
