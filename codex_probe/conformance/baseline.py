"""Expected failures per check, codex-cli version and backend, and how they judge an outcome.

The baseline is a TOML file in the format both gates read (rig/baseline.py):

    [[expected]]
    codex = "0.120.0"
    id = "CONF-INTERRUPT-001"
    backend = "real"    # optional: real (default) or fake
    reason = "why this is expected (measured where)"
    failure = 'a regex the failure text must match'

A baselined check that fails as `failure` says is reported as an expected failure
(pytest's xfail); one that fails otherwise is a new failure; one that passes is a
stale entry and fails, so the baseline never outlives what it excuses.

A `real` entry is upstream behaviour, and the fake imitates its release, upstream's
failures included: so a real entry covers the fake of that version too, and the fake
passing there means it no longer imitates the release. A `fake` entry (drift of the
fake from its release) takes precedence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from codex_probe.conformance.registry import conformance_checks
from codex_probe.rig.baseline import ExpectedEntry, GateKeys, load_entries
from codex_probe.rig.defaults import BACKEND_KINDS

DEFAULT_BASELINE = "expected-failures.toml"
KEYS = GateKeys(
    required=("failure",),
    defaults={"backend": "real"},
    choices={"backend": BACKEND_KINDS},
    distinguishing=("backend",),
)


@dataclass(frozen=True)
class ExpectedFailure:
    check: str
    version: str
    backend: str
    reason: str
    failure: re.Pattern[str]

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.check, self.version, self.backend)


@dataclass(frozen=True)
class ExpectedFailures:
    path: Path | None
    entries: dict[tuple[str, str, str], ExpectedFailure]

    def lookup(self, check: str, version: str, backend: str) -> ExpectedFailure | None:
        own = self.entries.get((check, version, backend))
        if own is None and backend == "fake":
            return self.entries.get((check, version, "real"))
        return own


def default_baseline_path() -> Path:
    return Path(str(resources.files("codex_probe.conformance") / "baselines" / DEFAULT_BASELINE))


def no_expected_failures() -> ExpectedFailures:
    return ExpectedFailures(None, {})


def load_expected_failures(path: Path) -> ExpectedFailures:
    """The baseline file `path` (a BaselineError names the file and the entry)."""
    failures = (_expected_failure(entry) for entry in load_entries(path, KEYS))
    return ExpectedFailures(path, {failure.key: failure for failure in failures})


def _expected_failure(entry: ExpectedEntry) -> ExpectedFailure:
    if entry.id not in conformance_checks():
        raise entry.refuse(f"unknown check id {entry.id!r}")
    try:
        failure = re.compile(entry.values["failure"])
    except re.error as error:
        raise entry.refuse(f"'failure' is not a regex: {error}") from None
    return ExpectedFailure(entry.id, entry.codex, entry.values["backend"], entry.reason, failure)


@dataclass(frozen=True)
class JudgedOutcome:
    """A check's outcome as the baseline judges it, and what the entry says (none: "")."""

    outcome: str  # "passed" | "failed" | "expected failure"
    message: str = ""


def judge(
    entry: ExpectedFailure | None, passed: bool, failure_text: str, backend: str | None = None
) -> JudgedOutcome:
    """A check's outcome on `backend` (default: the entry's own) as `entry` judges it."""
    if entry is None:
        return JudgedOutcome("passed" if passed else "failed")
    imitated = backend is not None and backend != entry.backend
    where = f"{entry.check} on {backend if imitated else entry.backend}-{entry.version}"
    if imitated:
        where += f" (imitating {entry.backend}-{entry.version})"
    if passed and imitated:
        return JudgedOutcome(
            "failed",
            f"{where} passes where upstream fails: the fake no longer imitates the release "
            f"(the entry says: {entry.reason})",
        )
    if passed:
        return JudgedOutcome(
            "failed",
            f"stale baseline entry: {where} now passes; remove the entry (it said: {entry.reason})",
        )
    if entry.failure.search(failure_text):
        said = "baseline, as upstream" if imitated else "baseline"
        return JudgedOutcome("expected failure", f"{said}: {entry.reason}")
    return JudgedOutcome(
        "failed",
        f"{where} is baselined, but fails differently: its failure text does not match "
        f"{entry.failure.pattern!r} (baseline reason: {entry.reason})",
    )
