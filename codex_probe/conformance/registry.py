"""The conformance checks: stable ids, what each pins, and the spec section or rule it protects.

A test is one check, declared where it is written: `@check("CONF-...", title=...,
protects=...)` (marks.py) registers it here and marks the test. Ids never change meaning;
a retired check keeps its id out of use (RETIRED, with why). A check pins the protocol
contract every client relies on and the design claims nothing about: shapes, orders, the
handshake, shutdown, schema fit, lifecycle invariants. What the design claims is an
assumption of the probes. The baseline (codex_probe/conformance/baselines/) and reports key
on these ids.
"""

from __future__ import annotations

import importlib
import pkgutil
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


# Every check, as the suites declare it with @check (marks.py): filled as their modules load.
_DECLARED: dict[str, ConformanceCheck] = {}


def declare(check: ConformanceCheck) -> None:
    """Register a check where its test is defined; an id is declared once, never reused."""
    if check.id in RETIRED:
        raise ValueError(f"{check.id} is retired ({RETIRED[check.id]}): it stays out of use")
    if check.id in _DECLARED and _DECLARED[check.id] != check:
        raise ValueError(f"conformance check id {check.id} is declared twice")
    _DECLARED[check.id] = check


def declared(check_id: str) -> ConformanceCheck | None:
    """The check `check_id` if the module of its test is loaded (a collected test's is),
    without loading any other suite: the plugin costs a run that uses none of them nothing."""
    return _DECLARED.get(check_id)


def conformance_checks() -> dict[str, ConformanceCheck]:
    """Every check of the suites, by id: their modules are loaded (once) to read them."""
    import codex_probe.conformance.suites as suites  # their tests declare the checks

    for module in pkgutil.iter_modules(suites.__path__):
        importlib.import_module(f"{suites.__name__}.{module.name}")
    return dict(_DECLARED)


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
