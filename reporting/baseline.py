"""The gate's baseline: changes we know about and accept, per codex version, with a reason.

A TOML file (comments welcome), one `[[expected]]` table per accepted finding:

    [[expected]]
    codex = "0.171.0"
    assumption = "resume-refresh-cold"
    verdict = "changed"   # optional: "changed" (default) or "broken"
    reason = "0.171.0 applies new instructions on a cold resume; the dispatcher clears ..."

An entry must keep matching: when the probe no longer reports that verdict (the
assumption holds again, or it is absent), the entry is stale and fails the gate, so
an old excuse cannot hide a new state.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ACCEPTABLE_VERDICTS = ("changed", "broken")
KEYS = {"codex", "assumption", "verdict", "reason"}


class BaselineError(ValueError):
    """The baseline file is missing, not TOML, or an entry is incomplete or repeated."""


@dataclass(frozen=True)
class BaselineEntry:
    codex: str
    assumption: str
    verdict: str
    reason: str


@dataclass(frozen=True)
class Baseline:
    entries: tuple[BaselineEntry, ...] = ()

    def for_version(self, version: str) -> dict[str, BaselineEntry]:
        return {e.assumption: e for e in self.entries if e.codex == version}


def load_baseline(path: Path) -> Baseline:
    try:
        document = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise BaselineError(f"{path}: no such baseline file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise BaselineError(f"{path}: cannot be read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise BaselineError(f"{path}: not TOML: {error}") from None
    return parse_baseline(document, source=str(path))


def parse_baseline(document: dict[str, Any], *, source: str = "baseline") -> Baseline:
    unknown_tables = set(document) - {"expected"}
    if unknown_tables:
        raise BaselineError(
            f"{source}: unknown key(s) {', '.join(sorted(unknown_tables))}; "
            "expected only [[expected]] tables"
        )
    raw = document.get("expected", [])
    if not isinstance(raw, list):
        raise BaselineError(f"{source}: 'expected' must be an array of tables ([[expected]])")
    entries: list[BaselineEntry] = []
    seen: set[tuple[str, str]] = set()
    for number, item in enumerate(raw, start=1):
        entry = _entry(item, f"{source}: expected #{number}")
        key = (entry.codex, entry.assumption)
        if key in seen:
            raise BaselineError(
                f"{source}: expected #{number} repeats {entry.assumption} on {entry.codex}"
            )
        seen.add(key)
        entries.append(entry)
    return Baseline(tuple(entries))


def _entry(item: Any, where: str) -> BaselineEntry:
    if not isinstance(item, dict):
        raise BaselineError(f"{where}: not a table")
    unknown = set(item) - KEYS
    if unknown:
        raise BaselineError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    values: dict[str, str] = {}
    for key in ("codex", "assumption", "reason"):
        value = item.get(key)
        if not isinstance(value, str) or not value.strip():
            raise BaselineError(f"{where}: '{key}' must be a non-empty string")
        values[key] = value.strip()
    verdict = item.get("verdict", "changed")
    if verdict not in ACCEPTABLE_VERDICTS:
        raise BaselineError(
            f"{where}: verdict {verdict!r} cannot be baselined; use "
            + " or ".join(ACCEPTABLE_VERDICTS)
        )
    return BaselineEntry(values["codex"], values["assumption"], verdict, values["reason"])
