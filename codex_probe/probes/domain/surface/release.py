"""The surface of one release: everything observable of its protocol, read from the
records its scenarios left (no process started for it) and the schema it generates,
normalized so that two runs of the release give the same surface.

Seven aspects, each a flat map of keys to JSON values (a change is one key whose value
differs between two surfaces):

    initialize       the `initialize` answer without and with the experimentalApi
                     capability, and an experimental field asked for without and with it
    notifications    per request, the notifications codex sent after its answer and
                     before the next answer, in order (codex_probe/probes/domain/surface/wire.py)
    answers          per request, the shape of its answer (keys and value types)
    refusals         per refused request: code, message (ids masked), data, and how the
                     reference driver reads it
    model_requests   per step, each request codex made of the model provider
    schema           per method of the generated schema, the fields of its params and
                     of its answer, with their types, enum values, nullability and
                     whether they are required (schema.py)
    exploration      per method x state x variant the exploration called (probes/explore/),
                     the answer's shape with its enumerated values, the refusal, the
                     notifications (codex_probe/probes/domain/surface/exploration.py)

Keys name where a value comes from: `SCENARIO STEP METHOD` (notifications, answers,
refusals; `#2` for a method's second request in a step), `SCENARIO STEP #N` (model
requests), `KIND METHOD` (schema), `METHOD STATE VARIANT` (exploration).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codex_probe.harness.driver.touches import driver_touches
from codex_probe.probes.domain.reading import View
from codex_probe.probes.domain.surface.exploration import exploration_aspect
from codex_probe.probes.domain.surface.model import model_requests
from codex_probe.probes.domain.surface.schema import schema_methods
from codex_probe.probes.domain.surface.shape import shape
from codex_probe.probes.domain.surface.wire import (
    BETWEEN_STEPS,
    Exchange,
    WireReading,
    answer_value,
    read_wire,
    refusal_value,
)

# What a surface holds and how it is masked (shape.py, wire.py, timing.py): bump it with any
# change to either, so recorded surfaces are not compared with new ones (a history's
# probe_set includes it: its releases are probed again; surface.json of another format
# is refused in one line). 1 is the first landed form, with every mask of 2026-12-02; 2
# adds each request's answer to the schema aspect (`{"params": ..., "result": ...}`); 3 adds
# the exploration aspect; 4 adds the exploration's state `new` and masks the time in a
# rollout file's name; 5: a copy a refused call made codex say something of serves no
# further call (what a cell records changed, so does the format: explore/run.py); 6: a
# call waits for the turns it started where they run (a detached review's thread) and no
# longer for a thread codex unloaded or a turn its input went into (explore/lane.py).
FORMAT = 6
ASPECTS = (
    "initialize",
    "notifications",
    "answers",
    "refusals",
    "model_requests",
    "schema",
    "exploration",
)
EXPLORATION = "exploration"
# The handshake scenario's steps the initialize aspect reads (codex_probe/probes/runner/scenarios.py
# names its steps with these).
HANDSHAKE_SCENARIO = "handshake"
INITIALIZE_WITH_EXPERIMENTAL = "initialize"
EXPERIMENTAL_WITHOUT = "experimental-without"
EXPERIMENTAL_WITH = "experimental-with"
EXPERIMENTAL_STEPS = {
    EXPERIMENTAL_WITHOUT: "without experimentalApi",
    EXPERIMENTAL_WITH: "with experimentalApi",
}


def experimental_key(method: str, declared: bool) -> str:
    """The initialize aspect's key of an experimental field of `method` asked for with or
    without the capability declared."""
    step = EXPERIMENTAL_WITH if declared else EXPERIMENTAL_WITHOUT
    return f"{method} experimental field {EXPERIMENTAL_STEPS[step]}"


def scenario_of(aspect: str, key: str) -> str:
    """The scenario a key's value is read from ("schema" for the schema's, "exploration"
    for the exploration's)."""
    if aspect in ("schema", EXPLORATION):
        return aspect
    if aspect == "initialize":
        return HANDSHAKE_SCENARIO
    return key.split(" ", 1)[0]


def in_gap(aspect: str, key: str, missing: tuple[str, ...] | list[str]) -> bool:
    """Whether a key's value could not be read: its scenario broke, or the schema did."""
    where = scenario_of(aspect, key)
    return any(gap == where or gap.startswith(where + " ") for gap in missing)


class SurfaceFormatError(ValueError):
    """A surface file that is not of the shape this module writes."""


@dataclass(frozen=True)
class Surface:
    version: str
    aspects: dict[str, dict[str, Any]]
    # Scenarios that broke or did not run (their keys are missing), and "schema" when the
    # release's schema could not be read: a surface with gaps says where.
    missing: tuple[str, ...] = ()
    scenarios: tuple[str, ...] = field(default=())

    @property
    def complete(self) -> bool:
        return not self.missing

    def digest(self) -> str:
        text = json.dumps(self.aspects, sort_keys=True, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]

    def value(self, aspect: str, key: str) -> Any:
        return self.aspects.get(aspect, {}).get(key)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": self.version,
            "digest": self.digest(),
            "scenarios": list(self.scenarios),
            "missing": list(self.missing),
            "aspects": self.aspects,
        }

    @classmethod
    def from_json(cls, document: Any, where: str = "surface") -> Surface:
        if not isinstance(document, dict) or not isinstance(document.get("aspects"), dict):
            raise SurfaceFormatError(f"{where}: expected an object with an 'aspects' object")
        if document.get("format") != FORMAT:
            raise SurfaceFormatError(
                f"{where}: surface format {document.get('format')!r}, this tool reads {FORMAT}"
            )
        aspects = document["aspects"]
        if not all(isinstance(aspects.get(a, {}), dict) for a in ASPECTS):
            raise SurfaceFormatError(f"{where}: every aspect must be an object")
        return cls(
            version=str(document.get("version", "")),
            aspects={a: dict(aspects.get(a, {})) for a in ASPECTS},
            missing=tuple(str(m) for m in document.get("missing") or []),
            scenarios=tuple(str(s) for s in document.get("scenarios") or []),
        )


def surface_of(
    version: str,
    records: Mapping[str, dict[str, Any] | None],
    schema_dir: Path | None,
    exploration: dict[str, Any] | str | None = None,
) -> Surface:
    """The surface of `version` from its scenarios' records (None: the scenario broke or
    did not run), its schema folder (None: not available) and its exploration's record
    (None: not explored, and its aspect is empty; a text: why it broke, a gap)."""
    aspects: dict[str, dict[str, Any]] = {aspect: {} for aspect in ASPECTS}
    missing = [name for name, record in records.items() if record is None]
    if isinstance(exploration, str):
        missing.append(f"{EXPLORATION} ({exploration})")
    elif exploration is not None:
        aspects[EXPLORATION] = exploration_aspect(exploration, schema_dir)
    for scenario, record in records.items():
        if record is not None:
            _add_scenario(aspects, scenario, View(record))
    if schema_dir is None:
        missing.append("schema")
    else:
        try:
            aspects["schema"] = schema_methods(schema_dir)
        except (OSError, ValueError, KeyError) as error:
            missing.append(f"schema ({error})")
    return Surface(version, aspects, tuple(missing), tuple(records))


def _add_scenario(aspects: dict[str, dict[str, Any]], scenario: str, view: View) -> None:
    wire = read_wire(view)
    _add_exchanges(aspects, scenario, wire)
    if wire.incidental:
        aspects["notifications"][f"{scenario} (outside the lifecycle)"] = sorted(wire.incidental)
    for step, requests in model_requests(view).items():
        for number, request in enumerate(requests):
            aspects["model_requests"][f"{scenario} {step} #{number}"] = request


def _add_exchanges(aspects: dict[str, dict[str, Any]], scenario: str, wire: WireReading) -> None:
    touches = driver_touches()
    seen: dict[str, int] = {}
    for exchange in wire.exchanges:
        if exchange.step == BETWEEN_STEPS:
            continue
        key = f"{scenario} {exchange.step} {exchange.method}"
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key += f" #{seen[key]}"
        if exchange.notifications:
            aspects["notifications"][key] = exchange.notifications
        if scenario == HANDSHAKE_SCENARIO and _initialize_aspect(aspects, exchange):
            continue
        if exchange.method == "initialize":
            continue  # every process's handshake: the initialize aspect has it once
        if exchange.error is not None:
            refusal = refusal_value(exchange)
            refusal["driver_reads"] = touches.reading_of(refusal["code"], refusal["message"])
            if exchange.late:
                refusal["late"] = True
            aspects["refusals"][key] = refusal
            continue
        aspects["answers"][key] = answer_value(exchange, wire.unanswered.get(exchange.step))


def _initialize_aspect(aspects: dict[str, dict[str, Any]], exchange: Exchange) -> bool:
    """File a handshake exchange under the initialize aspect, if it is one of its."""
    where = aspects["initialize"]
    if exchange.method == "initialize" and exchange.step.startswith("restart-"):
        if "initialize without experimentalApi" not in where:
            where["initialize without experimentalApi"] = shape(exchange.result)
        return True
    if exchange.method == "initialize" and exchange.step == INITIALIZE_WITH_EXPERIMENTAL:
        where["initialize with experimentalApi"] = _outcome(exchange)
        return True
    if exchange.step in EXPERIMENTAL_STEPS:
        declared = exchange.step == EXPERIMENTAL_WITH
        where[experimental_key(exchange.method, declared)] = _outcome(exchange)
        return True
    return False


def _outcome(exchange: Exchange) -> dict[str, Any]:
    if exchange.error is not None:
        return {"refused": refusal_value(exchange)}
    return {"answered": shape(exchange.result)}
