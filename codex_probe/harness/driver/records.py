"""What the driver did, as data: every request with its outcome, each delivery, each prepare.

Records are returned on success and carried by the exceptions on failure, so a caller
(a probe, the fault campaign, `codex-probe drive`) always sees which methods were
sent and which bodies are delivered, held, refused or of unknown fate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from codex_probe.harness.driver.refusals import ThreadRefusal


class Outcome(StrEnum):
    OK = "ok"
    REFUSED = "refused"  # the server answered an error: it did not act
    UNKNOWN = "unknown"  # transport failed: the server may or may not have acted


@dataclass(frozen=True)
class SentRequest:
    method: str
    params: dict[str, Any]
    outcome: Outcome
    error_code: int | None = None
    error_message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "params": self.params,
            "outcome": self.outcome.value,
            "error_code": self.error_code,
            "error_message": self.error_message,
        }


class DeliveryStatus(StrEnum):
    DELIVERED = "delivered"  # accepted by the server into a turn
    HELD = "held"  # in the continuation inbox until the next safe boundary
    UNDELIVERED = "undelivered"  # refused by the server; reported, not retried
    UNKNOWN = "unknown"  # transport failed mid-send; never replayed
    SKIPPED = "skipped"  # empty text: no turn is sent (spec 4.7)


@dataclass(frozen=True)
class Delivery:
    thread_id: str
    body: str
    status: DeliveryStatus
    method: str = ""  # the request that carried it (turn/start or turn/steer)
    turn_id: str = ""
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "thread_id": self.thread_id,
            "status": self.status.value,
            "method": self.method,
            "turn_id": self.turn_id,
            "detail": self.detail,
            "body_chars": len(self.body),
        }


class PreparePath(StrEnum):
    FRESH = "fresh"  # no session id: a new thread with the fresh prompt
    RESUME = "resume"  # the session resumed; the resume prompt delivered to it
    FALLBACK = "fallback"  # resume refused as invalid/not found: one new thread


@dataclass(frozen=True)
class FallbackReason:
    method: str  # the refused request: thread/resume, or the first direct delivery
    refusal: ThreadRefusal
    code: int
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "refusal": self.refusal.value,
            "code": self.code,
            "message": self.message,
        }


@dataclass
class InitialThread:
    """The record of one `prepare_initial_thread`."""

    path: PreparePath | None = None  # None until a path has been taken
    thread_id: str = ""
    session_id: str = ""
    requests: list[SentRequest] = field(default_factory=list)
    fallback_reason: FallbackReason | None = None
    delivery: Delivery | None = None

    @property
    def methods(self) -> list[str]:
        return [request.method for request in self.requests]

    def params_of(self, method: str) -> list[dict[str, Any]]:
        return [request.params for request in self.requests if request.method == method]

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path.value if self.path is not None else None,
            "thread_id": self.thread_id,
            "session_id": self.session_id,
            "methods": self.methods,
            "fallback_reason": (
                self.fallback_reason.to_json() if self.fallback_reason is not None else None
            ),
            "delivery": self.delivery.to_json() if self.delivery is not None else None,
            "requests": [request.to_json() for request in self.requests],
        }


class DriverError(Exception):
    """Base of the driver's own failures."""


class PrepareFailed(DriverError):
    """prepare_initial_thread stopped; `record` holds what was sent up to then.

    `outcome_known` is False when the last request's fate is unknown (transport
    failure): the driver then refuses to replay the input on another thread.
    """

    def __init__(self, summary: str, record: InitialThread, *, outcome_known: bool) -> None:
        self.record = record
        self.outcome_known = outcome_known
        sent = ", ".join(record.methods) or "nothing"
        super().__init__(f"{summary} (sent: {sent})")


class UnexpectedAnswer(DriverError):
    """The server answered OK with a result the driver cannot use (e.g. no thread id)."""


class DeliveryOutcomeUnknown(DriverError):
    """A body's request failed in transport: it may or may not be in a turn. Not replayed."""

    def __init__(self, deliveries: list[Delivery], cause: Exception) -> None:
        self.deliveries = deliveries
        super().__init__(
            f"delivery of {len(deliveries)} message(s) has an unknown outcome and will not be "
            f"replayed: {cause}"
        )


class SettleFailed(DriverError):
    """settle stopped (a turn that never ended, a lost server) before the thread was idle.

    `deliveries` holds every held body it took from the inbox up to then, with its fate
    (delivered, undelivered or unknown), so none goes unreported; `completed` the
    turn/completed params it saw.
    """

    def __init__(
        self, completed: list[dict[str, Any]], deliveries: list[Delivery], cause: Exception
    ) -> None:
        self.completed = completed
        self.deliveries = deliveries
        super().__init__(
            f"settling stopped after {len(completed)} completed turn(s), with "
            f"{len(deliveries)} held message(s) sent: {cause}"
        )
