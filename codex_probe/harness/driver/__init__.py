"""The reference CodexAppServerDriver (spec 4.6, 4.7) and its sandbox mapping."""

from codex_probe.harness.driver.codex import DEFAULT_REQUEST_TIMEOUT, CodexAppServerDriver
from codex_probe.harness.driver.drive import (
    DEFAULT_TURN_TIMEOUT,
    DriveResult,
    drive_once,
    settle,
)
from codex_probe.harness.driver.inbox import ContinuationInbox, HeldMessage
from codex_probe.harness.driver.params import (
    TurnRequest,
    start_turn_params,
    steer_turn_params,
    thread_resume_params,
    thread_start_params,
)
from codex_probe.harness.driver.records import (
    Delivery,
    DeliveryOutcomeUnknown,
    DeliveryStatus,
    DriverError,
    FallbackReason,
    InitialThread,
    Outcome,
    PrepareFailed,
    PreparePath,
    SentRequest,
    SettleFailed,
    UnexpectedAnswer,
)
from codex_probe.harness.driver.refusals import (
    SteerRefusal,
    ThreadRefusal,
    steer_refusal,
    thread_refusal,
)
from codex_probe.harness.driver.sandbox import (
    APPROVAL_POLICY,
    PermissionMode,
    SandboxConfigError,
    SandboxSettings,
    UnknownPermissionModeError,
    parse_permission_mode,
    sandbox_settings,
)

__all__ = [
    "APPROVAL_POLICY",
    "DEFAULT_REQUEST_TIMEOUT",
    "DEFAULT_TURN_TIMEOUT",
    "CodexAppServerDriver",
    "ContinuationInbox",
    "Delivery",
    "DeliveryOutcomeUnknown",
    "DeliveryStatus",
    "DriveResult",
    "DriverError",
    "FallbackReason",
    "HeldMessage",
    "InitialThread",
    "Outcome",
    "PermissionMode",
    "PrepareFailed",
    "PreparePath",
    "SandboxConfigError",
    "SandboxSettings",
    "SentRequest",
    "SettleFailed",
    "SteerRefusal",
    "ThreadRefusal",
    "TurnRequest",
    "UnexpectedAnswer",
    "UnknownPermissionModeError",
    "drive_once",
    "parse_permission_mode",
    "sandbox_settings",
    "settle",
    "start_turn_params",
    "steer_refusal",
    "steer_turn_params",
    "thread_refusal",
    "thread_resume_params",
    "thread_start_params",
]
