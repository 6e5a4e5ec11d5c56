"""The cells of an exploration: method x state x variant, read off a release's schema.

Variants of a method's params (their names are part of the surface's keys):

    minimal                    the required fields only (no params, where params may be
                               left out)
    full                       every field
    FIELD=VALUE                the minimal call with one enumerated field set to one of its
                               values (every enum value, tagged alternative or item kind in
                               turn; `input=[localImage]`)
    with FIELD                 the minimal call with one optional field of the full call's
                               (one that is not enumerated: those are FIELD=VALUE); of a
                               method that takes no thread (the fields a thread method
                               takes are asked about threads in every state)
    FIELD of an id nobody has  the minimal call with a field that names one of the thread's
                               turns naming a turn nobody has (`turnId`, `lastTurnId`)
    params not an object       params that are a list
    without FIELD              the minimal call less one required field
    FIELD of the wrong type    the minimal call with a field of a type it does not take
    FIELD of an unknown value  the minimal call with an enumerated field set to none of
                               its values

States: `none` (no thread: a thread method is asked about an id nobody has), and the
thread states of states.py. A thread method (a required `threadId`) runs its minimal and
full calls in every state, its FIELD=VALUE calls in `idle` and `none` (and in every
state where it only reads the state's own thread, `_sent_in`), a turn nobody has in every
thread state (what codex answers for it depends on the turns the thread has: a turn in
flight, none); any other method runs in `none`. Invalid calls run in `none` only
(methods.py says why).

A server request codex asks while a turn runs is answered with each decision its
schema allows (`item/commandExecution/requestApproval idle decision=accept`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from codex_probe.fake_appserver.answer_book import UNKNOWN_TURN, WITH
from codex_probe.probes.explore.fixtures import TURN, UNKNOWN, fill_for
from codex_probe.probes.explore.methods import NONE_ORDER, STARTS_TURN, THREAD_READS, policy_of
from codex_probe.probes.explore.schema_values import MISSING, Builder, SchemaTree
from codex_probe.probes.explore.states import IDLE, NEW, NONE, THREAD_STATES, UNLOADED

CellKind = Literal["valid", "invalid", "approval"]
# Thread reads that make a thread (a fork per call): their values are sent in `idle` only.
CREATES_THREAD = frozenset({"thread/fork"})
MINIMAL = "minimal"
FULL = "full"
NOT_AN_OBJECT = "params not an object"
LIST_PARAMS = ["explore"]
# The server request whose decisions are explored, and what makes codex ask it.
APPROVAL_METHOD = "item/commandExecution/requestApproval"
APPROVAL_RESPONSE = "CommandExecutionRequestApprovalResponse.json"


@dataclass(frozen=True)
class Cell:
    method: str
    state: str
    variant: str
    # The params sent, with placeholders (fixtures.py); None: no params at all.
    params: Any
    kind: CellKind = "valid"
    # Whether the call needs a thread of its own in its state (it may change the thread).
    on_copy: bool = False
    # The answer to the server request (approval cells).
    answer: Any = None

    @property
    def key(self) -> str:
        return f"{self.method} {self.state} {self.variant}"


@dataclass(frozen=True)
class Unsent:
    method: str
    variant: str
    why: str


@dataclass
class Plan:
    cells: list[Cell] = field(default_factory=list)
    unsent: list[Unsent] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)

    def in_state(self, state: str) -> list[Cell]:
        return [cell for cell in self.cells if cell.state == state]

    def none_reads(self) -> list[Cell]:
        """The valid cells of `none` that only read (the group `read` of NONE_ORDER: the
        reads, and the thread methods asked about an id nobody has), in order."""
        return [
            cell
            for cell in self.in_state(NONE)
            if cell.kind == "valid" and none_group(cell.method) == "read"
        ]

    def only(self, keys: set[str]) -> Plan:
        """The plan with only the cells named (by key)."""
        chosen = [cell for cell in self.cells if cell.key in keys]
        return Plan(chosen, self.unsent, sorted({cell.method for cell in chosen}))


@dataclass(frozen=True)
class Variant:
    name: str
    params: Any
    kind: CellKind


def make_plan(schema_dir: Path) -> Plan:
    """Every cell of the release whose schema is in `schema_dir`, in the order they run: in
    `none` the groups of methods.NONE_ORDER then every invalid call; then each thread
    state's cells."""
    union = json.loads((schema_dir / "ClientRequest.json").read_text(encoding="utf-8"))
    tree = SchemaTree(union.get("definitions") or {})
    params_of: dict[str, Any] = {}
    for variant in union.get("oneOf") or []:
        method = variant["properties"]["method"]["enum"][0]
        params_of[method] = variant["properties"].get("params", {"type": "null"})
    plan = Plan(methods=sorted(params_of))
    by_group: dict[str, list[Cell]] = {group: [] for group in NONE_ORDER}
    invalid: list[Cell] = []
    per_state: dict[str, list[Cell]] = {state: [] for state in THREAD_STATES}
    for method in sorted(params_of):
        policy = policy_of(method)
        builder = Builder(tree, fill_for(method))
        node = params_of[method]
        made = variants_of(builder, node)
        invalid += [
            Cell(method, NONE, v.name, v.params, "invalid") for v in made if v.kind == "invalid"
        ]
        valid = [v for v in made if v.kind == "valid"]
        sent = []
        for v in valid:
            why = policy.unsent.get(v.name)
            if why is not None:
                plan.unsent.append(Unsent(method, v.name, why))
            else:
                sent.append(v)
        if policy.group == "refused-only":
            plan.unsent.append(Unsent(method, "(every valid call)", policy.why))
            continue
        if policy.group == "thread" and _takes_thread(tree, node):
            for state in (NONE, *THREAD_STATES):
                on_copy = state != NONE and (method not in THREAD_READS or state in (UNLOADED, NEW))
                chosen = [v for v in sent if _sent_in(v, method, state, on_copy)]
                cells = [Cell(method, state, v.name, v.params, on_copy=on_copy) for v in chosen]
                (by_group["read"] if state == NONE else per_state[state]).extend(cells)
            continue
        group = none_group(method)
        by_group[group] += [Cell(method, NONE, v.name, v.params) for v in sent]
    plan.cells = [cell for group in NONE_ORDER for cell in by_group[group]] + invalid
    per_state[IDLE] += approval_cells(schema_dir)
    for state in THREAD_STATES:
        plan.cells += per_state[state]
    return plan


def none_group(method: str) -> str:
    """The group of NONE_ORDER a method's calls in `none` belong to (a thread method's,
    about an id nobody has, only read)."""
    group = policy_of(method).group
    return group if group in NONE_ORDER else "read"


def _sent_in(variant: Variant, method: str, state: str, on_copy: bool) -> bool:
    """Whether a thread method's valid `variant` is sent in `state`: the minimal and full
    calls everywhere; each enumerated value on an idle thread, about an id nobody has
    (codex checks some values before it looks the thread up), on an unloaded one (a
    resume that loads it applies the values sent, where one of a loaded thread ignores
    them) and where the call only reads the state's own thread (no copy); a turn nobody
    has in every thread state. A call that makes a thread or starts a turn (a turn each,
    run to its end) sends its values and a turn nobody has on an idle thread only."""
    once = method in CREATES_THREAD or method in STARTS_TURN
    if variant.name.startswith(WITH):
        return False
    if variant.name.endswith(UNKNOWN_TURN):
        return state != NONE and (state == IDLE or not once)
    if variant.name in (MINIMAL, FULL) or state in (IDLE, NONE):
        return True
    return not once and (not on_copy or state == UNLOADED)


def _takes_thread(tree: SchemaTree, node: Any) -> bool:
    resolved = tree.resolve(node)
    alternatives = tree.alternatives(resolved) if isinstance(resolved, dict) else []
    for candidate in [resolved, *alternatives]:
        if isinstance(candidate, dict) and "threadId" in (candidate.get("required") or []):
            return True
    return False


def variants_of(builder: Builder, node: Any) -> list[Variant]:
    """The variants of a method's params (see the module)."""
    tree = builder.tree
    resolved = tree.resolve(node)
    if tree.is_null(resolved):
        return [Variant(MINIMAL, None, "valid"), Variant(NOT_AN_OBJECT, LIST_PARAMS, "invalid")]
    alternatives = tree.alternatives(resolved)
    optional = isinstance(resolved, dict) and any(
        tree.is_null(alt) for key in ("anyOf", "oneOf") for alt in resolved.get(key, [])
    )
    body = alternatives[0] if optional and len(alternatives) == 1 else resolved
    body = tree.resolve(body)
    minimal = None if optional else builder.value(body, full=False)
    full = builder.value(body, full=True)
    found = [Variant(MINIMAL, minimal, "valid"), Variant(FULL, full, "valid")]
    base = minimal if isinstance(minimal, dict) else builder.value(body, full=False)
    properties = properties_of(tree, body)
    union = [] if properties else tree.alternatives(body)
    for alt in union:  # params that are a tagged union themselves (account/login/start)
        tagged = tree.tag(alt)
        if tagged is not None:
            made = builder.value(alt, full=False, path=(f"<{tagged[1]}>",))
            found.append(Variant(f"{tagged[0]}={tagged[1]}", made, "valid"))
    enumerated = set()
    for name, sub in sorted(properties.items()):
        for finite in builder.finite_values(sub, (name,)):
            enumerated.add(name)
            found.append(Variant(f"{name}={finite.label}", {**base, name: finite.value}, "valid"))
    if isinstance(full, dict) and isinstance(base, dict):
        for name in sorted(set(full) - set(base) - enumerated):
            found.append(Variant(f"{WITH}{name}", {**base, name: full[name]}, "valid"))
    if isinstance(full, dict):
        for name in sorted(n for n, value in full.items() if value == TURN):
            unknown_turn = {**base, name: UNKNOWN}
            found.append(Variant(f"{name} {UNKNOWN_TURN}", unknown_turn, "valid"))
    found.append(Variant(NOT_AN_OBJECT, LIST_PARAMS, "invalid"))
    required = sorted(required_of(tree, body))
    for name in required:
        if isinstance(base, dict) and name in base:
            without = {key: value for key, value in base.items() if key != name}
            found.append(Variant(f"without {name}", without, "invalid"))
    for name, sub in sorted(properties.items()):
        wrong = builder.wrong_typed(sub)
        if wrong is not MISSING:
            found.append(Variant(f"{name} of the wrong type", {**base, name: wrong}, "invalid"))
        unknown = builder.unknown_value(sub, (name,))
        if unknown is not MISSING:
            found.append(Variant(f"{name} of an unknown value", {**base, name: unknown}, "invalid"))
    if union and isinstance(base, dict):
        tagged = tree.tag(union[0])
        if tagged is not None:
            unknown_tag = {**base, tagged[0]: "exploreUnknown"}
            found.append(Variant(f"{tagged[0]} of an unknown value", unknown_tag, "invalid"))
    return _distinct(found)


def properties_of(tree: SchemaTree, node: Any) -> dict[str, Any]:
    node = tree.resolve(node)
    if not isinstance(node, dict):
        return {}
    properties: dict[str, Any] = dict(node.get("properties") or {})
    for part in node.get("allOf") or []:
        properties.update(properties_of(tree, part))
    return properties


def required_of(tree: SchemaTree, node: Any) -> set[str]:
    node = tree.resolve(node)
    if not isinstance(node, dict):
        return set()
    required = set(node.get("required") or [])
    if not node.get("properties"):
        alternatives = tree.alternatives(node)
        if alternatives:
            first = tree.resolve(alternatives[0])
            if isinstance(first, dict):
                required |= set(first.get("required") or [])
    return required


def _distinct(variants: list[Variant]) -> list[Variant]:
    """Each variant name once (the first wins)."""
    seen: set[str] = set()
    kept = []
    for variant in variants:
        if variant.name not in seen:
            seen.add(variant.name)
            kept.append(variant)
    return kept


def approval_cells(schema_dir: Path) -> list[Cell]:
    """One cell per decision a client may answer a command approval with (the schema's
    response type of the server request), each on its own idle thread."""
    path = schema_dir / APPROVAL_RESPONSE
    if not path.is_file():
        path = schema_dir / "v2" / APPROVAL_RESPONSE
    if not path.is_file():
        return []
    document = json.loads(path.read_text(encoding="utf-8"))
    tree = SchemaTree(document.get("definitions") or {})
    builder = Builder(tree)
    decision = (document.get("properties") or {}).get("decision")
    if decision is None:
        return []
    return [
        Cell(
            APPROVAL_METHOD,
            IDLE,
            f"decision={finite.label}",
            None,
            "approval",
            on_copy=True,
            answer={"decision": finite.value},
        )
        for finite in builder.finite_values(decision, ("decision",))
    ]
