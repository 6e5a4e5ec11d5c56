from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codex_probe.harness.dispatcher import (
    ResumeReason,
    Runtime,
    SessionRecord,
    instruction_fingerprint,
    runtime_policy,
    validate_session_resume,
)

CURRENT = instruction_fingerprint("current base", "current developer")
CODEX_POLICY = runtime_policy("codex")


STORED = SessionRecord(
    session_id="thread-1",
    runtime_policy=CODEX_POLICY,
    instruction_fingerprint=CURRENT,
)


def test_same_policy_and_fingerprint_keeps_the_session() -> None:
    decision = validate_session_resume(STORED, runtime="codex", fingerprint=CURRENT)
    assert (decision.session_id, decision.reason, decision.kept) == (
        "thread-1",
        ResumeReason.KEPT,
        True,
    )


def test_no_stored_session_is_a_fresh_start_not_a_clearing() -> None:
    decision = validate_session_resume(None, runtime="codex", fingerprint=CURRENT)
    assert (decision.session_id, decision.reason) == ("", ResumeReason.NO_SESSION)
    blank_id = replace(STORED, session_id="  ")
    blank = validate_session_resume(blank_id, runtime="codex", fingerprint=CURRENT)
    assert blank.reason is ResumeReason.NO_SESSION


def test_changed_instructions_clear_the_session() -> None:
    stored = instruction_fingerprint("old base", "current developer")
    decision = validate_session_resume(
        replace(STORED, instruction_fingerprint=stored),
        runtime="codex",
        fingerprint=CURRENT,
    )
    assert (decision.session_id, decision.reason) == ("", ResumeReason.FINGERPRINT_CHANGED)
    assert stored in decision.detail
    assert CURRENT in decision.detail


def test_a_session_without_fingerprint_is_legacy_and_cleared() -> None:
    decision = validate_session_resume(
        replace(STORED, instruction_fingerprint=""),
        runtime="codex",
        fingerprint=CURRENT,
    )
    assert (decision.session_id, decision.reason) == (
        "",
        ResumeReason.LEGACY_WITHOUT_FINGERPRINT,
    )


def test_a_session_of_another_runtime_policy_is_cleared() -> None:
    decision = validate_session_resume(
        replace(STORED, runtime_policy=runtime_policy("claude")),
        runtime="codex",
        fingerprint=CURRENT,
    )
    assert (decision.session_id, decision.reason) == ("", ResumeReason.RUNTIME_POLICY_MISMATCH)
    assert "claude:full-prompt" in decision.detail


def test_a_legacy_mcp_suffix_on_the_stored_fingerprint_still_keeps_the_session() -> None:
    decision = validate_session_resume(
        replace(STORED, instruction_fingerprint=f"{CURRENT}:mcp:abc123"),
        runtime="codex",
        fingerprint=CURRENT,
    )
    assert decision.kept


@given(resume_safe=st.booleans(), epoch=st.integers(), version=st.integers())
def test_resume_safe_epoch_and_version_never_clear_the_session(
    resume_safe: bool,
    epoch: int,
    version: int,
) -> None:
    stored = replace(STORED, resume_safe=resume_safe, epoch=epoch, version=version)
    decision = validate_session_resume(stored, runtime="codex", fingerprint=CURRENT)
    assert decision.kept


@pytest.mark.parametrize(
    ("runtime", "policy"),
    [
        (Runtime.CODEX, "codex:split-instructions"),
        (Runtime.CLAUDE, "claude:full-prompt"),
        (Runtime.OPENCODE, "opencode:full-prompt"),
    ],
)
def test_each_runtime_has_its_own_policy(runtime: Runtime, policy: str) -> None:
    assert runtime_policy(runtime) == policy
