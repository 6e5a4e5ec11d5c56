"""Baselines: results of a codex-cli version we expect and accept, each with a reason.

Both gates read this one TOML format (comments welcome), one `[[expected]]` table per
expected result:

    [[expected]]
    codex = "0.120.0"           # the codex-cli version
    id = "CONF-INTERRUPT-001"   # what is judged: a conformance check or a probe assumption
    reason = "why it is expected, measured where"
    # ... and the keys of the gate that reads the file

The conformance gate (codex_probe/conformance/baseline.py) needs `failure`, a regex the failure
text must match, and takes `backend` (real, the default, or fake); the probe gate
(reporting/baseline.py) takes `verdict` (changed, the default, or broken). Every value
is a non-empty string. A key the gate does not know, a key it needs missing and an
entry repeated (same codex, id and backend) are refused with a BaselineError naming
the file and the entry. A gate judges an entry that no longer matches as stale: the
baseline never outlives what it excuses.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

COMMON_KEYS = ("codex", "id", "reason")


class BaselineError(ValueError):
    """A baseline file that cannot be used; the message names the file and the entry."""


@dataclass(frozen=True)
class GateKeys:
    """The keys one gate's entries hold besides codex, id and reason."""

    required: tuple[str, ...] = ()
    # Optional keys, with the value an entry without one has.
    defaults: Mapping[str, str] = field(default_factory=dict)
    # The values a key may take (a key not named here: any non-empty string).
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Keys that tell apart two entries of one codex version and id.
    distinguishing: tuple[str, ...] = ()

    @property
    def known(self) -> tuple[str, ...]:
        return (*COMMON_KEYS, *self.required, *self.defaults)


@dataclass(frozen=True)
class ExpectedEntry:
    """One `[[expected]]` table, its optional keys filled in with their defaults."""

    where: str  # "FILE: expected #N", to name the entry in a refusal
    codex: str
    id: str
    reason: str
    values: Mapping[str, str]  # the gate's own keys

    def refuse(self, problem: str) -> BaselineError:
        """The error that refuses this entry for a problem only its gate can see."""
        return BaselineError(f"{self.where}: {problem}")


def load_entries(path: Path, keys: GateKeys) -> tuple[ExpectedEntry, ...]:
    """The entries of the baseline file `path`, as a gate with `keys` reads them."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"{path}: no such baseline file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise BaselineError(f"{path}: cannot be read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise BaselineError(f"{path}: not TOML: {error}") from None
    return parse_entries(document, keys, source=str(path))


def parse_entries(
    document: Mapping[str, Any], keys: GateKeys, *, source: str
) -> tuple[ExpectedEntry, ...]:
    unknown_tables = set(document) - {"expected"}
    if unknown_tables:
        raise BaselineError(
            f"{source}: unknown key(s) {', '.join(sorted(unknown_tables))}; "
            "a baseline holds only [[expected]] tables"
        )
    raw = document.get("expected", [])
    if not isinstance(raw, list):
        raise BaselineError(f"{source}: 'expected' must be an array of tables ([[expected]])")
    entries: list[ExpectedEntry] = []
    first_of: dict[tuple[str, ...], int] = {}
    for number, item in enumerate(raw, start=1):
        entry = _entry(item, keys, f"{source}: expected #{number}")
        identity = (entry.codex, entry.id, *(entry.values[k] for k in keys.distinguishing))
        if identity in first_of:
            what = ", ".join(
                [f"{entry.id} on {entry.codex}"]
                + [f"{k} {entry.values[k]}" for k in keys.distinguishing]
            )
            raise entry.refuse(f"repeats expected #{first_of[identity]} ({what})")
        first_of[identity] = number
        entries.append(entry)
    return tuple(entries)


def _entry(item: Any, keys: GateKeys, where: str) -> ExpectedEntry:
    if not isinstance(item, dict):
        raise BaselineError(f"{where}: not a table")
    unknown = set(item) - set(keys.known)
    if unknown:
        raise BaselineError(
            f"{where}: unknown key(s) {', '.join(sorted(unknown))}; known: {', '.join(keys.known)}"
        )
    values: dict[str, str] = {}
    for key in keys.known:
        value = item.get(key, keys.defaults.get(key))
        if value is None:
            raise BaselineError(f"{where}: '{key}' is missing")
        if not isinstance(value, str) or not value.strip():
            raise BaselineError(f"{where}: '{key}' must be a non-empty string")
        allowed = keys.choices.get(key)
        if allowed is not None and value not in allowed:
            raise BaselineError(f"{where}: {key} must be {' or '.join(allowed)}, got {value!r}")
        # Only the common keys are trimmed: a gate's value (a regex) is taken as written.
        values[key] = value.strip() if key in COMMON_KEYS else value
    codex, id_, reason = (values.pop(key) for key in COMMON_KEYS)
    return ExpectedEntry(where, codex, id_, reason, values)
