"""Every message both ways against the schema of the version under test: two checks, one
test run once per side.

They run after every other check (the plugin moves them last) and judge every
transcript the run logged for their target, plus one exchange of their own over
the methods the driver uses, so neither is ever judged on nothing. The exchange is
not judged on its outcome (other checks do that): a failed step just ends it.
"""

from __future__ import annotations

import contextlib

import pytest

from codex_probe.conformance.holds import Holds, hold_turn
from codex_probe.conformance.marks import check
from codex_probe.conformance.target import Target
from codex_probe.conformance.wire import (
    LoggedTranscript,
    Side,
    WireLog,
    validator_for,
    violation_report,
    wire_violations,
)
from codex_probe.harness.jsonrpc.errors import JsonRpcError
from codex_probe.rig.session import Session

pytestmark = pytest.mark.asyncio


async def exchange(session: Session, holds: Holds) -> None:
    """The methods the driver and probes use, once each, on one thread."""
    with contextlib.suppress(JsonRpcError, AssertionError, KeyError, TypeError):
        await session.open()
        thread = await session.start_thread(baseInstructions="BASE", developerInstructions="DEV")
        first = await session.run_turn(thread["id"], "wire check")
        await session.request("thread/read", {"threadId": thread["id"], "includeTurns": True})
        await session.request("thread/resume", {"threadId": thread["id"]})
        await session.compact(thread["id"], {first["id"]})
        turn, marker = await hold_turn(session, holds, thread["id"])
        try:
            await session.request(
                "turn/interrupt", {"threadId": thread["id"], "turnId": turn["id"]}
            )
            await session.wait_turn("turn/completed", turn["id"])
        finally:
            holds.release(marker)
        await session.request("thread/unsubscribe", {"threadId": thread["id"]})


async def judged(
    session: Session, holds: Holds, log: WireLog, target: Target, nodeid: str
) -> list[LoggedTranscript]:
    await exchange(session, holds)
    await session.close()
    own = [
        LoggedTranscript(f"{nodeid} (process {n})", tuple(p.entries))
        for n, p in enumerate(session.processes, start=1)
    ]
    return log.transcripts(target.label) + own


SIDES = [
    pytest.param(
        "server",
        marks=check(
            "CONF-WIRE-SERVER-001",
            title="every message the server sent fits this version's generated schema",
            protects="DESIGN 'Rules': the protocol schema comes from the binary under test",
            runs_last=True,
        ),
        id="server",
    ),
    pytest.param(
        "client",
        marks=check(
            "CONF-WIRE-CLIENT-001",
            title="every message our client sent fits this version's generated schema",
            protects="DESIGN 'Rules': the harness speaks the protocol of the version under test",
            runs_last=True,
        ),
        id="client",
    ),
]


@pytest.mark.parametrize("side", SIDES)
async def test_every_message_of_one_side_fits_the_schema(
    side: Side,
    codex_session: Session,
    codex_holds: Holds,
    codex_target: Target,
    codex_wire_log: WireLog,
    request: pytest.FixtureRequest,
) -> None:
    target = codex_target
    logged = await judged(codex_session, codex_holds, codex_wire_log, target, request.node.nodeid)
    found, count = wire_violations(validator_for(codex_session.backend.schema_dir), logged, side)
    assert count > 0, f"no {side} message was recorded to judge"
    assert not found, violation_report(side, found, count, target.label)
