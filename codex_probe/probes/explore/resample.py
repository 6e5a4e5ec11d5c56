"""Out-of-sample work for a release: calls the exploration (plan.py) never sends, drawn from
the release's own schema with a seed of their own, for comparing a learned fake with the
real release on work its learner never saw (probes/releases/holdout.py).

The exploration sends each method's minimal call, its full call, and the minimal call with
one enumerated field changed; its walks use seed 0 on. A *resampled* call is drawn anew by
`random.Random(f"{seed} {method} {sample}")`: each optional field present or not, every
enumerated field (enum, tagged alternative, boolean) at a value of its own draw, so several
change together, numbers within the schema's bounds, free strings other than the
exploration's. The exploration's fixtures (fixtures.py) still fill what they fill (a live
thread's id, the exploration's folders, the booleans kept off so codex reaches nothing
real; a few of them drawn among other values the exploration owns: ALTERNATIVES), a field
a method's own fixture sets is always sent as it is (a goal set `paused`), and a
call the exploration leaves unsent on purpose (methods.py) stays unsent.

Each method gets its resampled calls in the states where the exploration calls it validly
(a thread method in every state, any other in `none`; methods.py says which are only
refused), on a copy where the exploration's are; and one resampled invalid call in `none`:
a resampled valid call with one field (drawn) missing, of the wrong type, or of an unknown
value. A draw that equals a call the exploration sends is drawn again; a method whose
every draw is one the exploration sends (it takes no params) is `in_sample`, not swept.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codex_probe.probes.explore.fixtures import AUDIO, BY_METHOD, IMAGE, UNKNOWN, WORK, fill_for
from codex_probe.probes.explore.methods import policy_of
from codex_probe.probes.explore.plan import Cell, Plan, make_plan
from codex_probe.probes.explore.schema_values import (
    MAX_DEPTH,
    MISSING,
    STRING,
    Builder,
    SchemaTree,
    all_of,
)

# Other values the exploration owns, for a field its fixtures fill by name: another file it
# lays out to read, a turn nobody has, other bytes to write, another search.
ALTERNATIVES: dict[str, tuple[Any, ...]] = {
    "path": (IMAGE, AUDIO, f"{WORK}/files"),
    "turnId": (UNKNOWN,),
    "dataBase64": ("aG9sZG91dA==",),
    "deltaBase64": ("aG9sZG91dA==",),
    "query": ("image",),
}
RESAMPLED = "resampled"
RESAMPLED_INVALID = "resampled invalid"
# Draws of one call before a method is said to have nothing out of sample.
ATTEMPTS = 24
# How likely an optional field is present, and an array has an item.
PRESENT = 0.5
Path_ = tuple[str, ...]


@dataclass
class Resampled:
    """The out-of-sample sweep of a release: its cells, and the methods left out."""

    plan: Plan
    seed: int
    # Methods with no call the exploration does not send (no params to draw), or only
    # refused ones: not swept.
    in_sample: list[str] = field(default_factory=list)


class Drawer:
    """Draws values of a schema's nodes at random, with the exploration's fixtures."""

    def __init__(
        self, builder: Builder, chance: random.Random, seed: int, kept: frozenset[str]
    ) -> None:
        self.builder = builder
        self.tree = builder.tree
        self.chance = chance
        self.seed = seed
        # Fields the method's own fixtures set (fixtures.BY_METHOD): always sent, as the
        # exploration sends them (a goal set `paused`, so that codex does not start
        # working on it by itself: its turn then falls in the call's window or not).
        self.kept = kept

    def value(self, node: Any, path: Path_ = (), depth: int = 0) -> Any:
        tree, chance = self.tree, self.chance
        resolved = tree.resolve(node)
        given = self.builder.fill(path, resolved if isinstance(resolved, dict) else {})
        if given is not MISSING:
            name = path[-1] if path else ""
            others = () if name in self.kept else ALTERNATIVES.get(name, ())
            return chance.choice((given, *others))
        if depth > MAX_DEPTH or not isinstance(resolved, dict) or tree.is_any(resolved):
            return STRING if tree.is_any(resolved) else None
        if "const" in resolved:
            return resolved["const"]
        if "enum" in resolved:
            values = [v for v in resolved["enum"] if v is not None]
            return chance.choice(values) if values else None
        alternatives = tree.alternatives(resolved)
        if alternatives:
            chosen_node = chance.choice(alternatives)
            where = (*path, f"<{tree.label(chosen_node)}>") if len(alternatives) > 1 else path
            chosen = self.value(chosen_node, where, depth + 1)
            if "properties" in resolved and isinstance(chosen, dict):
                return {**self.object(resolved, path, depth), **chosen}
            return chosen
        if "allOf" in resolved:
            return all_of([self.value(part, path, depth + 1) for part in resolved["allOf"]])
        types = sorted(t for t in tree.json_types(resolved) or set() if t != "null")
        if "object" in types or "properties" in resolved:
            return self.object(resolved, path, depth)
        return self.scalar(resolved, chance.choice(types) if types else "null", path, depth)

    def scalar(self, node: dict[str, Any], kind: str, path: Path_, depth: int) -> Any:
        chance = self.chance
        if kind == "array":
            items = node.get("items")
            if isinstance(items, dict | bool) and chance.random() < PRESENT:
                return [self.value(items, (*path, "[]"), depth + 1)]
            return []
        if kind == "string":
            return f"{STRING}-{self.seed}-{chance.randrange(1000)}"
        if kind == "integer":
            least = int(node.get("minimum") or 0)
            most = int(node["maximum"]) if "maximum" in node else least + 100
            return chance.randint(max(least, min(1, most)), most)
        if kind == "number":
            return round(chance.uniform(0.0, 2.0), 2)
        if kind == "boolean":
            return chance.random() < PRESENT
        return None

    def object(self, node: dict[str, Any], path: Path_, depth: int) -> dict[str, Any]:
        properties: dict[str, Any] = node.get("properties") or {}
        required = set(node.get("required") or [])
        return {
            name: self.value(sub, (*path, name), depth + 1)
            for name, sub in properties.items()
            if name in required
            or name in self.kept
            or ".".join((*path, name)) in self.kept
            or self.chance.random() < PRESENT
        }


def resample(schema_dir: Path, seed: int, samples: int = 1) -> Resampled:
    """The out-of-sample sweep of the release whose schema is in `schema_dir` (see the
    module): `samples` resampled calls per method and state, one resampled invalid call
    per method."""
    base = make_plan(schema_dir)
    union = json.loads((schema_dir / "ClientRequest.json").read_text(encoding="utf-8"))
    tree = SchemaTree(union.get("definitions") or {})
    params_of = {
        variant["properties"]["method"]["enum"][0]: variant["properties"].get(
            "params", {"type": "null"}
        )
        for variant in union.get("oneOf") or []
    }
    sent: dict[str, set[str]] = {}
    for cell in base.cells:
        sent.setdefault(cell.method, set()).add(_text(cell.params))
    where: dict[str, list[Cell]] = {}
    for cell in base.cells:
        if cell.kind == "valid" and cell.variant == "minimal":
            where.setdefault(cell.method, []).append(cell)
    found = Resampled(Plan(methods=base.methods), seed)
    invalid: list[Cell] = []
    valid: list[Cell] = []
    for method in sorted(params_of):
        node = params_of[method]
        calls = [
            _draw(tree, node, method, seed, sample, sent.get(method, set()))
            for sample in range(1, samples + 1)
        ]
        drawn = [call for call in calls if call is not MISSING]
        wrong = _invalid(tree, node, method, seed, sent.get(method, set()))
        if wrong is not MISSING:
            invalid.append(Cell(method, "none", RESAMPLED_INVALID, wrong, "invalid"))
        if not drawn or not where.get(method):
            found.in_sample.append(method)
            continue
        for cell in where[method]:
            for number, params in enumerate(drawn, start=1):
                variant = RESAMPLED if samples == 1 else f"{RESAMPLED} {number}"
                valid.append(
                    Cell(method, cell.state, variant, params, "valid", on_copy=cell.on_copy)
                )
    order = {cell.key: n for n, cell in enumerate(base.cells)}

    def place(cell: Cell) -> int:
        return order.get(f"{cell.method} {cell.state} minimal", len(order))

    found.plan.cells = sorted(valid, key=place) + invalid
    # The none lane runs its cells in the plan's order: valid by group, then invalid.
    return found


def _kept(method: str) -> frozenset[str]:
    return frozenset(BY_METHOD.get(method, {}))


def _text(params: Any) -> str:
    return json.dumps(params, sort_keys=True)


def _draw(tree: SchemaTree, node: Any, method: str, seed: int, sample: int, sent: set[str]) -> Any:
    """A valid call of `method` the exploration does not send; MISSING if none is drawn."""
    chance = random.Random(f"{seed} {method} {sample}")
    drawer = Drawer(Builder(tree, fill_for(method)), chance, seed, _kept(method))
    unsent = policy_of(method).unsent
    for _ in range(ATTEMPTS):
        params = _params(drawer, node)
        if _text(params) not in sent and not _left_unsent(params, unsent):
            return params
    return MISSING


def _params(drawer: Drawer, node: Any) -> Any:
    """Params drawn for a method's params node (params that may be left out are an
    object of their own: leaving them out is the exploration's minimal call)."""
    tree = drawer.tree
    resolved = tree.resolve(node)
    if tree.is_null(resolved):
        return None
    alternatives = tree.alternatives(resolved)
    optional = isinstance(resolved, dict) and any(
        tree.is_null(alt) for key in ("anyOf", "oneOf") for alt in resolved.get(key, [])
    )
    body = alternatives[0] if optional and len(alternatives) == 1 else resolved
    return drawer.value(body)


def _left_unsent(params: Any, unsent: dict[str, str]) -> bool:
    """Whether `params` is a call methods.py leaves unsent (`type=chatgpt`)."""
    if not isinstance(params, dict):
        return False
    for name in unsent:
        field_name, _, value = name.partition("=")
        if value and str(params.get(field_name)) == value:
            return True
    return False


def _invalid(tree: SchemaTree, node: Any, method: str, seed: int, sent: set[str]) -> Any:
    """A resampled call with one drawn field missing, of the wrong type or of an unknown
    value; MISSING where the params have no fields."""
    chance = random.Random(f"{seed} {method} invalid")
    builder = Builder(tree, fill_for(method))
    drawer = Drawer(builder, chance, seed, _kept(method))
    for _ in range(ATTEMPTS):
        params = _params(drawer, node)
        if not isinstance(params, dict):
            return MISSING
        body = _body(tree, node)
        properties = dict(body.get("properties") or {})
        required = [name for name in body.get("required") or [] if name in params]
        breaks: list[tuple[str, Any]] = [("missing", name) for name in required]
        for name, sub in properties.items():
            wrong = builder.wrong_typed(sub)
            if wrong is not MISSING:
                breaks.append(("wrong", (name, wrong)))
            unknown = builder.unknown_value(sub, (name,))
            if unknown is not MISSING:
                breaks.append(("unknown", (name, unknown)))
        if not breaks:
            return MISSING
        how, what = chance.choice(breaks)
        if how == "missing":
            broken = {key: value for key, value in params.items() if key != what}
        else:
            broken = {**params, what[0]: what[1]}
        if _text(broken) not in sent:
            return broken
    return MISSING


def _body(tree: SchemaTree, node: Any) -> dict[str, Any]:
    resolved = tree.resolve(node)
    alternatives = tree.alternatives(resolved)
    if isinstance(resolved, dict) and not resolved.get("properties") and len(alternatives) == 1:
        resolved = tree.resolve(alternatives[0])
    return resolved if isinstance(resolved, dict) else {}
