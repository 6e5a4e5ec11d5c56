"""Expected failures per check, codex-cli version and backend, and how they judge an outcome.

The baseline is a JSON file:

    {"entries": [{"check": "CONF-INTERRUPT-002", "version": "0.120.0", "backend": "real",
                  "reason": "why this is expected (measured where)",
                  "failure": "a regex the failure text must match"}]}

A baselined check that fails as `failure` says is reported as an expected failure
(pytest's xfail); one that fails otherwise is a new failure; one that passes is a
stale entry and fails, so the baseline never outlives what it excuses.

A `real` entry is upstream behaviour, and the fake imitates its release, upstream's
failures included: so a real entry covers the fake of that version too, and the fake
passing there means it no longer imitates the release. A `fake` entry (drift of the
fake from its release) takes precedence.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from conformance.registry import CONFORMANCE_CHECKS

DEFAULT_BASELINE = "expected-failures.json"


class BaselineError(ValueError):
    """A baseline file that cannot be used; the message names the file and entry."""


@dataclass(frozen=True)
class Entry:
    check: str
    version: str
    backend: str
    reason: str
    failure: re.Pattern[str]

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.check, self.version, self.backend)


@dataclass(frozen=True)
class Baseline:
    path: Path | None
    entries: dict[tuple[str, str, str], Entry]

    def lookup(self, check: str, version: str, backend: str) -> Entry | None:
        own = self.entries.get((check, version, backend))
        if own is None and backend == "fake":
            return self.entries.get((check, version, "real"))
        return own


def default_baseline_path() -> Path:
    return Path(str(resources.files("conformance") / "baselines" / DEFAULT_BASELINE))


def empty() -> Baseline:
    return Baseline(None, {})


def load_baseline(path: Path) -> Baseline:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise BaselineError(f"{path}: cannot read the baseline: {error}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("entries"), list):
        raise BaselineError(f"{path}: a baseline is an object with an 'entries' list")
    entries: dict[tuple[str, str, str], Entry] = {}
    for number, item in enumerate(raw["entries"], start=1):
        entry = _entry(path, number, item)
        if entry.key in entries:
            raise BaselineError(f"{path}: entry {number} repeats {entry.key}")
        entries[entry.key] = entry
    return Baseline(path, entries)


def _entry(path: Path, number: int, item: Any) -> Entry:
    where = f"{path}: entry {number}"
    fields = ("check", "version", "backend", "reason", "failure")
    if not isinstance(item, dict) or any(not isinstance(item.get(f), str) for f in fields):
        raise BaselineError(f"{where}: needs string fields {', '.join(fields)}")
    unknown = set(item) - set(fields)
    if unknown:
        raise BaselineError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    if item["check"] not in CONFORMANCE_CHECKS:
        raise BaselineError(f"{where}: unknown check id {item['check']!r}")
    if item["backend"] not in ("real", "fake"):
        raise BaselineError(f"{where}: backend must be real or fake, got {item['backend']!r}")
    if not item["reason"].strip():
        raise BaselineError(f"{where}: an expected failure needs a reason")
    try:
        failure = re.compile(item["failure"])
    except re.error as error:
        raise BaselineError(f"{where}: 'failure' is not a regex: {error}") from None
    return Entry(item["check"], item["version"], item["backend"], item["reason"], failure)


@dataclass(frozen=True)
class JudgedOutcome:
    """A check's outcome as the baseline judges it, and what the entry says (none: "")."""

    outcome: str  # "passed" | "failed" | "expected failure"
    message: str = ""


def judge(
    entry: Entry | None, passed: bool, failure_text: str, backend: str | None = None
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
