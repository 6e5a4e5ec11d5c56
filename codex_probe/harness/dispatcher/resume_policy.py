"""Whether a stored session may be resumed (spec 4.5 point 1, 6.3 `validateSessionResume`).

Resume-time instruction refresh is not reliable upstream (spec 5.3), so a thread is
resumed only when it provably holds the current instructions: same runtime policy and
same semantic fingerprint. Anything else cuts over to a fresh thread, which carries
the current instructions. Delivery bookkeeping (SessionResumeSafe, epoch, version)
serves delivery ownership and never clears the provider thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from codex_probe.harness.dispatcher.fingerprint import fingerprints_match
from codex_probe.harness.dispatcher.runtime import Runtime, runtime_policy


class ResumeReason(StrEnum):
    KEPT = "kept"
    NO_SESSION = "no_session"  # nothing stored: a fresh start, nothing was cleared
    RUNTIME_POLICY_MISMATCH = "runtime_policy_mismatch"
    FINGERPRINT_CHANGED = "fingerprint_changed"
    LEGACY_WITHOUT_FINGERPRINT = "legacy_session_without_fingerprint"


@dataclass(frozen=True)
class SessionRecord:
    """What the daemon stored about a provider session."""

    session_id: str
    runtime_policy: str  # `runtime_policy()` of the runtime that created it
    instruction_fingerprint: str = ""  # "" for sessions from before the split
    # Delivery ownership and reconciliation state: recorded, never a reason to clear.
    resume_safe: bool = True
    epoch: int = 0
    version: int = 0


@dataclass(frozen=True)
class ResumeDecision:
    session_id: str  # the id to resume, or "" for a fresh thread
    reason: ResumeReason
    detail: str  # one sentence for people

    @property
    def kept(self) -> bool:
        return self.reason is ResumeReason.KEPT


def validate_session_resume(
    record: SessionRecord | None,
    *,
    runtime: Runtime | str,
    fingerprint: str,
) -> ResumeDecision:
    """Keep the stored session id, or clear it and say why."""
    if record is None or not record.session_id.strip():
        return ResumeDecision("", ResumeReason.NO_SESSION, "no stored session: fresh thread")
    current_policy = runtime_policy(runtime)
    if record.runtime_policy != current_policy:
        return ResumeDecision(
            "",
            ResumeReason.RUNTIME_POLICY_MISMATCH,
            f"session was created under runtime policy {record.runtime_policy!r}, "
            f"current policy is {current_policy!r}: fresh thread",
        )
    if not record.instruction_fingerprint.strip():
        return ResumeDecision(
            "",
            ResumeReason.LEGACY_WITHOUT_FINGERPRINT,
            "session has no instruction fingerprint (created before the prompt split): "
            "fresh thread",
        )
    if not fingerprints_match(record.instruction_fingerprint, fingerprint):
        return ResumeDecision(
            "",
            ResumeReason.FINGERPRINT_CHANGED,
            f"instructions changed: stored fingerprint {record.instruction_fingerprint} "
            f"differs from current {fingerprint}: fresh thread",
        )
    return ResumeDecision(
        record.session_id.strip(),
        ResumeReason.KEPT,
        "same runtime policy and instruction fingerprint: resume",
    )
