"""Every message of every check, validated against the schema of the version under test.

Each process's transcript is logged (per target) when the fixture that started it
ends. The two wire checks judge the whole log: one the server's messages, one our
client's, so a server that breaks the schema and a harness that does are two
different failures.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from codex_probe.harness.codex.transcripts import validate_transcript
from codex_probe.harness.codex.validator import MessageValidator, Violation
from codex_probe.harness.jsonrpc.transcript import TranscriptEntry

Side = str  # "server" | "client"
SHOWN_VIOLATIONS = 25


@dataclass(frozen=True)
class LoggedTranscript:
    source: str  # the test (node id) that made it
    entries: tuple[TranscriptEntry, ...]
    off_schema_methods: frozenset[str] = frozenset()


@dataclass
class WireLog:
    """Transcripts per target label, in the order their checks ended."""

    by_target: dict[str, list[LoggedTranscript]] = field(default_factory=lambda: defaultdict(list))

    def add(
        self,
        target: str,
        source: str,
        entries: list[TranscriptEntry],
        off_schema_methods: set[str] | frozenset[str] = frozenset(),
    ) -> None:
        self.by_target[target].append(
            LoggedTranscript(source, tuple(entries), frozenset(off_schema_methods))
        )

    def transcripts(self, target: str) -> list[LoggedTranscript]:
        return list(self.by_target.get(target, []))


@dataclass(frozen=True)
class WireViolation:
    """One logged message that breaks the schema, and the test whose transcript holds it."""

    source: str
    violation: Violation
    message: str

    def __str__(self) -> str:
        return f"{self.source}\n    {self.violation}\n    message: {self.message}"


@cache
def validator_for(schema_dir: Path) -> MessageValidator:
    return MessageValidator(schema_dir)


def side_of(entry: TranscriptEntry) -> Side:
    return "client" if entry.direction == "send" else "server"


def _excused(entry: TranscriptEntry, logged: LoggedTranscript) -> bool:
    """A client request a check sent off-schema on purpose (the server's answer is judged)."""
    message = entry.message
    return (
        entry.direction == "send"
        and isinstance(message, dict)
        and message.get("method") in logged.off_schema_methods
    )


def wire_violations(
    validator: MessageValidator, logged: list[LoggedTranscript], side: Side
) -> tuple[list[WireViolation], int]:
    """Violations of one side over all logged transcripts, and how many messages were judged."""
    found: list[WireViolation] = []
    judged = 0
    for transcript in logged:
        entries = list(transcript.entries)
        excused = {
            number for number, entry in enumerate(entries, start=1) if _excused(entry, transcript)
        }
        judged += sum(
            1
            for number, entry in enumerate(entries, start=1)
            if side_of(entry) == side and number not in excused
        )
        for violation in validate_transcript(validator, entries):
            number = violation.entry
            if number is None or number in excused:
                continue
            entry = entries[number - 1]
            if side_of(entry) != side:
                continue
            found.append(WireViolation(transcript.source, violation, _short(entry.message)))
    return found, judged


def violation_report(side: Side, found: list[WireViolation], judged: int, target: str) -> str:
    shown = "\n".join(str(f) for f in found[:SHOWN_VIOLATIONS])
    hidden = len(found) - SHOWN_VIOLATIONS
    more = f"\n... and {hidden} more" if hidden > 0 else ""
    who = "the server" if side == "server" else "our client"
    return (
        f"{len(found)} of {judged} messages {who} sent on {target} break the schema:\n{shown}{more}"
    )


def _short(message: object, limit: int = 300) -> str:
    text = repr(message)
    return text if len(text) <= limit else text[: limit - 3] + "..."
