"""The conformance checks: stable ids, what each pins, and the spec section or rule it protects.

A test is one check: it carries `@pytest.mark.conformance_check("CONF-...")`, and the
id must be registered here. Ids never change meaning; a retired check keeps its id
out of use. The baseline (conformance/baselines/) and reports key on these ids.
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
        "CONF-THREAD-START-003",
        "baseInstructions and developerInstructions are accepted and reach the model",
        "spec 1.2, 4.2, 4.6: instructions travel as thread/start fields",
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
        "CONF-TURN-004",
        "turn/start on a thread this process has not loaded is refused 'thread not found: <id>'",
        "spec 4.5 #2: a direct delivery refused as not-found may fall back once to a fresh thread",
    ),
    ConformanceCheck(
        "CONF-TURN-005",
        "turn/start while a turn is active joins it: no second turn starts, its text reaches "
        "the model, the active turn completes",
        "spec 4.6 resolveTurnRequestForDirectDelivery: a turn/start racing a turn's start "
        "delivers into that turn; its turn/completed stays the boundary",
    ),
    ConformanceCheck(
        "CONF-STEER-001",
        "turn/steer on the active turn answers its id and the steered text reaches the model",
        "spec 4.6 EncodeStdinMessage: ack-aware delivery into an active turn",
    ),
    ConformanceCheck(
        "CONF-STEER-002",
        "turn/steer with no active turn is refused 'no active turn to steer'",
        "driver rule: steer_refusal NO_ACTIVE_TURN -> start a new turn at once",
    ),
    ConformanceCheck(
        "CONF-STEER-003",
        "turn/steer naming another turn is refused 'expected active turn id `x` but found `y`'",
        "driver rule: steer_refusal OTHER_TURN_ACTIVE -> hold the body until that turn ends",
    ),
    ConformanceCheck(
        "CONF-INTERRUPT-001",
        "turn/interrupt of the active turn answers {} and the turn completes 'interrupted'",
        "DESIGN: every turn the harness starts ends under a deadline",
    ),
    ConformanceCheck(
        "CONF-INTERRUPT-002",
        "turn/interrupt with no active turn is answered: -32600 'no active turn to interrupt'",
        "DESIGN 'Rules': every request gets an answer before its deadline",
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
        "CONF-COMPACT-003",
        "after compaction the next turn still carries the start-time instructions",
        "spec 5.1: start-time instructions survive an explicit compaction (measured on 0.120.0)",
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
        "CONF-RESUME-003",
        "thread/resume of an unknown id is refused 'no rollout found for thread id <id>'",
        "spec 4.5 #2 / driver rule: only an explicit not-found allows the one fallback",
    ),
    ConformanceCheck(
        "CONF-RESUME-004",
        "thread/resume of a malformed id is refused 'invalid (session|thread) id: ...'",
        "spec 4.5 #2 / driver rule: only an explicit invalid allows the one fallback",
    ),
    ConformanceCheck(
        "CONF-RESUME-005",
        'thread/resume accepts the instruction fields, "" included',
        'spec 4.6 resumeThread: the current strings are always sent, "" included',
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
assert len(CONFORMANCE_CHECKS) == len(_ALL_CHECKS), "duplicate conformance check id"


def get_check(check_id: str) -> ConformanceCheck:
    try:
        return CONFORMANCE_CHECKS[check_id]
    except KeyError:
        raise KeyError(f"unknown conformance check id {check_id!r}") from None
