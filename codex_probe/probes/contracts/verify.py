"""`codex-probe verify`: does a client's contract still hold on a release?

Two readings, each giving rules of the catalogue (probes/domain/surface/rules.py) per
interaction:

- against the release's schema: every method the client calls, notification it sends and
  request of codex's it answers is still in it; every value it sent where the schema had
  an enum is still a value of that enum; every field it sent is still a field, of a type
  that admits what it sent; every field the schema now requires, it sends;
- a replay on the real release: each app-server the client started is started again
  (sealed, in one fresh home, the wiretap as its model, as record.py ran it), the client's
  requests are sent in order with the ids codex gave then mapped onto the ids it gives now
  (a thread's, a turn's) and the recording's folders onto the replay's; codex's requests
  are answered as the client answered them. Each request must be answered as before
  (not refused, not left unanswered); each answer must still carry every field the client
  received, with a type it can decode; every lifecycle notification codex sent after it
  must be sent again (waited for, each, up to a deadline), with its fields.

A replay that cannot go on (codex exits, a transport failure) leaves the rest of its
process unreplayed: that part could not be told (`unknown`).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.codex.schema_shapes import Fields, MethodShape, load_shapes
from codex_probe.harness.codex.seal import seal_launch
from codex_probe.harness.jsonrpc.client import JsonRpcClient
from codex_probe.harness.jsonrpc.errors import (
    JsonRpcError,
    NotificationTimeout,
    RequestTimeout,
    ServerError,
)
from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.harness.parent_death import bound_to_this_process
from codex_probe.probes.contracts.contract import HOME, WORK, Contract, Interaction, Process
from codex_probe.probes.contracts.messages import (
    enum_paths,
    merged_shape,
    replaced,
    strings,
)
from codex_probe.probes.domain.surface.classify import VARIANT, Classified, TypeText, classify
from codex_probe.probes.domain.surface.rules import DEFAULT_LEVELS, Levels, Severity
from codex_probe.probes.domain.surface.shape import ROOT, shape
from codex_probe.probes.domain.surface.wire import notification_label
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.wiretap import Wiretap

REQUEST_TIMEOUT = 60.0
NOTIFICATION_TIMEOUT = 30.0
COMPATIBLE, BREAKING, UNKNOWN = 0, 1, 3


@dataclass
class Checked:
    """One interaction of the contract, and the rules its use of the release meets."""

    process: int
    number: int
    kind: str
    method: str
    found: list[Classified] = field(default_factory=list)
    replayed: bool = False
    unknown: str | None = None  # why it could not be told

    @property
    def name(self) -> str:
        return f"#{self.process}.{self.number} {self.kind} {self.method}"

    def to_json(self) -> dict[str, Any]:
        return {
            "process": self.process,
            "number": self.number,
            "kind": self.kind,
            "method": self.method,
            "replayed": self.replayed,
            "unknown": self.unknown,
            "rules": [found.to_json() for found in self.found],
        }


@dataclass
class Verification:
    version: str
    recorded_on: str
    checked: list[Checked] = field(default_factory=list)
    problem: str | None = None  # the replay could not start or go on

    def lacking(self) -> list[str]:
        """The methods the contract uses that the release's schema lacks."""
        gone = ("method-removed", "client-notification-removed", "server-request-removed")
        return sorted(
            {c.method for c in self.checked for f in c.found if f.rule in gone and not f.where}
        )

    def worst(self) -> Severity | None:
        severities = [c.severity for checked in self.checked for c in checked.found]
        return max(severities) if severities else None

    def exit_code(self, fail_on: Severity = Severity.ERR) -> int:
        worst = self.worst()
        if worst is not None and worst >= fail_on:
            return BREAKING
        if self.problem or any(c.unknown for c in self.checked):
            return UNKNOWN
        return COMPATIBLE

    def to_json(self, fail_on: Severity = Severity.ERR) -> dict[str, Any]:
        code = self.exit_code(fail_on)
        return {
            "codex": self.version,
            "recorded_on": self.recorded_on,
            "answer": {COMPATIBLE: "compatible", BREAKING: "breaking", UNKNOWN: "unknown"}[code],
            "exit_code": code,
            "fail_on": fail_on.name,
            "problem": self.problem,
            "interactions": [checked.to_json() for checked in self.checked],
        }


Schema = dict[str, dict[str, MethodShape]]


async def verify_contract(
    contract: Contract, installation: Installation, *, levels: Levels = DEFAULT_LEVELS
) -> Verification:
    schema = load_shapes(await asyncio.to_thread(ensure_schema, installation))
    verification = Verification(installation.version, contract.recorded_on)
    for number, process in enumerate(contract.processes, start=1):
        for index, interaction in enumerate(process.interactions, start=1):
            checked = Checked(number, index, interaction.kind, interaction.method)
            checked.found = list(_against_schema(interaction, schema))
            verification.checked.append(checked)
    try:
        await _replay(contract, installation, schema, verification)
    except (OSError, JsonRpcError) as error:
        verification.problem = f"the replay could not run: {' '.join(str(error).split())[:300]}"
    for checked in verification.checked:
        leveled = [_leveled(found, levels) for found in checked.found]
        checked.found = sorted(leveled, key=lambda found: -found.severity)
    return verification


def _leveled(found: Classified, levels: Levels) -> Classified:
    return Classified(found.rule, levels.of(found.rule), found.where, found.before, found.after)


def _rule(rule: str, where: str, before: Any, after: Any) -> Classified:
    return Classified(rule, DEFAULT_LEVELS.of(rule), where, before, after)


# ----- against the schema -------------------------------------------------------------------

KINDS = {"request": "client request", "notification": "client notification"}


def _against_schema(interaction: Interaction, schema: Schema) -> Iterator[Classified]:
    if interaction.kind == "answer":
        asked = schema["server request"].get(interaction.method)
        if asked is None:
            yield _rule("server-request-removed", "", interaction.method, None)
            return
        yield from _sent_fields("result", interaction, asked.response)
        return
    known = schema[KINDS[interaction.kind]].get(interaction.method)
    if known is None:
        gone = "method-removed" if interaction.kind == "request" else "client-notification-removed"
        yield _rule(gone, "", interaction.method, None)
        return
    yield from _sent_fields("params", interaction, known.params)


def _sent_fields(
    part: str, interaction: Interaction, fields: Fields | None
) -> Iterator[Classified]:
    """What the client sent, against the fields the release takes there. A field of a
    variant of a tagged union (`input[]<type=image>.url`) is required only of a client that
    sent that variant (its `type` was `image`)."""
    if fields is None:
        return  # the schema names no type: nothing to hold it to
    types: dict[str, set[str]] = {}
    required: set[str] = set()
    for path, spec in fields.items():
        plain = VARIANT.sub("", path)
        types.setdefault(plain, set()).update(TypeText.parse(str(spec["type"])).atoms)
        if spec["required"] and _chosen(path, interaction.enum_values):
            required.add(plain)
    enums = enum_paths(fields)
    for path, values in interaction.enum_values.items():
        for value in values:
            if path in enums and value not in enums[path]:
                yield _rule("request-enum-value-removed", f"{part}.{path}", value, None)
    for path, sent in interaction.sent.items():
        if path == ROOT or path.endswith(("[]", "{}")):
            continue  # the items of a list or a map: their fields are checked, not them
        if path not in types:
            yield _rule("request-field-removed", f"{part}.{path}", sent, None)
        elif not _admits(types[path], sent):
            wanted = "|".join(sorted(types[path]))
            yield _rule("request-type-narrowed", f"{part}.{path}", sent, wanted)
    for path in sorted(required - interaction.sent.keys()):
        parent = path.rsplit(".", 1)[0] if "." in path else ROOT
        if parent == ROOT or "object" in interaction.sent.get(parent, "").split("|"):
            yield _rule("request-required-field-added", f"{part}.{path}", None, "required")


TAG = re.compile(r"<([^<>=]+)=([^<>]+)>")


def _chosen(path: str, sent: dict[str, list[str]]) -> bool:
    """Whether every variant `path` lies in is one the client sent: each label `<k=v>` has
    v among the values sent at k (a label of another form is no choice the client made)."""
    for match in VARIANT.finditer(path):
        tag = TAG.fullmatch(match.group(0))
        if tag is None:
            return False
        prefix = VARIANT.sub("", path[: match.start()])
        key = f"{prefix}.{tag.group(1)}" if prefix else tag.group(1)
        if tag.group(2) not in sent.get(key, []):
            return False
    return True


ADMITS = {"enum": "string", "map": "object", "number": "integer"}


def _admits(atoms: set[str], sent: str) -> bool:
    plain = {re.sub(r"\(.*\)$", "", atom) for atom in atoms}
    if "any" in plain or any("&" in atom for atom in plain):
        return True
    taken = plain | {ADMITS[a] for a in plain if a in ADMITS}
    return all(kind in taken for kind in sent.split("|"))


# ----- the replay ---------------------------------------------------------------------------


@dataclass
class _Replay:
    """What a replay learned so far: ids given then -> ids given now, the folders."""

    places: dict[str, str]
    ids: dict[str, str] = field(default_factory=dict)

    def params(self, value: Any) -> Any:
        return replaced(replaced(value, self.places), self.ids)

    def learn(self, recorded: dict[str, str], now: Any) -> None:
        given = dict(strings(now))
        for path, old in recorded.items():
            new = given.get(path)
            if isinstance(new, str) and new != old:
                self.ids.setdefault(old, new)


async def _replay(
    contract: Contract,
    installation: Installation,
    schema: Schema,
    verification: Verification,
) -> None:
    by_place = {(c.process, c.number): c for c in verification.checked}
    async with Wiretap() as wiretap:
        with IsolatedHome(wiretap.base_url) as home:
            replay = _Replay({WORK: str(home.workdir), HOME: str(home.home)})
            for number, process in enumerate(contract.processes, start=1):
                checked = [by_place[number, i] for i in range(1, len(process.interactions) + 1)]
                await _replay_process(process, checked, installation, home, schema, replay)


async def _replay_process(
    process: Process,
    checked: list[Checked],
    installation: Installation,
    home: IsolatedHome,
    schema: Schema,
    replay: _Replay,
) -> None:
    plain = [str(installation.binary), *process.args]
    argv, _ = await asyncio.to_thread(seal_launch, plain, cwd=home.workdir)
    if argv == plain:
        argv = bound_to_this_process(plain)
    client = await JsonRpcClient.spawn(
        argv, env=home.env(), cwd=home.workdir, transcript=Transcript()
    )
    asked: list[tuple[int, str, Any]] = []  # codex's requests: (interaction, method, params)
    position = [0]
    answers: dict[str, deque[Any]] = {}
    for interaction in process.interactions:
        if interaction.kind == "answer":
            answers.setdefault(interaction.method, deque()).append(interaction.answer)
    for method in schema["server request"]:
        client.on_request(method, _answerer(method, answers, asked, position, replay))
    windows: list[list[tuple[str, Any]]] = [[] for _ in process.interactions]
    try:
        for index, (interaction, check) in enumerate(
            zip(process.interactions, checked, strict=True)
        ):
            position[0] = index
            _take(client, windows[max(index - 1, 0)])
            if interaction.kind == "answer":
                continue  # answered by its handler when codex asks
            params = replay.params(interaction.params)
            if interaction.kind == "notification":
                await client.notify(interaction.method, params)
                check.replayed = True
                continue
            earlier = windows[index - 1] if index else []
            check.found += await _request(
                client, interaction, params, replay, windows[index], earlier
            )
            check.replayed = True
        _take(client, windows[-1])
    except JsonRpcError as error:  # a transport failure: the rest cannot be told
        said = " ".join(str(error).split())[:300]
        for check in checked:
            if not check.replayed and check.kind != "answer":
                check.unknown = f"not replayed: {said}"
    finally:
        await client.close(grace=2.0)
    _compare_answers(process, checked, asked)


def _answerer(
    method: str,
    answers: dict[str, deque[Any]],
    asked: list[tuple[int, str, Any]],
    position: list[int],
    replay: _Replay,
) -> Callable[[Any], Any]:
    async def answer(params: Any) -> Any:
        asked.append((position[0], method, params))
        recorded = answers.get(method)
        if not recorded:
            raise RuntimeError(f"the client never answered {method} when it was recorded")
        found = recorded[0] if len(recorded) == 1 else recorded.popleft()
        return replay.params(found)

    return answer


def _take(client: JsonRpcClient, window: list[tuple[str, Any]]) -> None:
    for note in client.drain_notifications():
        window.append((notification_label({"method": note.method, "params": note.params}), note))


async def _request(
    client: JsonRpcClient,
    interaction: Interaction,
    params: Any,
    replay: _Replay,
    window: list[tuple[str, Any]],
    earlier: list[tuple[str, Any]],
) -> list[Classified]:
    found: list[Classified] = []
    try:
        result = await client.request(interaction.method, params, timeout=REQUEST_TIMEOUT)
    except ServerError as error:
        if interaction.outcome == "answered":
            found.append(
                _rule(
                    "request-now-refused", "", "answered", f"refused {error.code}: {error.message}"
                )
            )
        elif interaction.refusal is not None and interaction.refusal.code != error.code:
            found.append(
                _rule("refusal-code-changed", "code", interaction.refusal.code, error.code)
            )
        return found
    except RequestTimeout:
        if interaction.outcome == "answered":
            found.append(
                _rule(
                    "request-now-unanswered",
                    "",
                    "answered",
                    f"unanswered within {REQUEST_TIMEOUT:.0f} s",
                )
            )
        return found
    if interaction.outcome == "refused":
        found.append(_rule("request-now-accepted", "", "refused", "answered"))
    elif interaction.received is not None and interaction.received != shape(result):
        found += classify("answers", interaction.method, interaction.received, shape(result))
    replay.learn(interaction.ids, result)
    found += await _awaited(client, interaction, replay, window, earlier)
    return found


async def _awaited(
    client: JsonRpcClient,
    interaction: Interaction,
    replay: _Replay,
    window: list[tuple[str, Any]],
    earlier: list[tuple[str, Any]],
) -> list[Classified]:
    """Wait for every lifecycle notification codex sent after this request when recorded;
    then compare what came with what came then. One that came before this request was sent,
    after the one before it, counts too: whether codex sends it before or after a quick
    client's next request is a race (0.120.0's `thread/started` after the thread/start
    answer, measured both ways)."""
    deadline = time.monotonic() + NOTIFICATION_TIMEOUT
    for label in dict.fromkeys(interaction.notifications):
        method = label.split(":", 1)[0].removesuffix(" (request)")

        def matches(note: Any, wanted: str = label) -> bool:
            return notification_label({"method": note.method, "params": note.params}) == wanted

        if any(seen == label for seen, _ in [*earlier, *window]) or any(
            matches(n) for n in client.notifications
        ):
            continue
        with contextlib.suppress(NotificationTimeout):
            await client.wait_for_notification(
                method, matches, timeout=max(0.1, deadline - time.monotonic()), consume=False
            )
    _take(client, window)
    found: list[Classified] = []
    for label in dict.fromkeys(interaction.notifications):
        # Its own window's, else the one before it (a race: see above).
        came = [n for said, n in window if said == label] or [
            n for said, n in earlier if said == label
        ]
        if not came:
            found.append(_rule("notification-no-longer-sent", "", label, None))
            continue
        shapes: dict[str, str] = {}
        for note in came:
            shapes = merged_shape(shapes, note.params)
        recorded = interaction.notification_shapes.get(label)
        if recorded is not None and recorded != shapes:
            for rule in classify("notifications", label, recorded, shapes):
                found.append(
                    Classified(
                        rule.rule, rule.severity, f"{label}: {rule.where}", rule.before, rule.after
                    )
                )
        replay.learn(interaction.notification_ids.get(label, {}), came[0].params)
    return found


def _compare_answers(
    process: Process, checked: list[Checked], asked: list[tuple[int, str, Any]]
) -> None:
    """Codex's requests of the client: each it answered when recorded asked again, in the
    same order per method, with the fields it received; any other is new."""
    waiting: dict[str, deque[tuple[int, Any]]] = {}
    for at, method, params in asked:
        waiting.setdefault(method, deque()).append((at, params))
    for interaction, check in zip(process.interactions, checked, strict=True):
        if interaction.kind != "answer":
            continue
        queue = waiting.get(interaction.method)
        if not queue:
            check.found.append(_rule("server-request-no-longer-sent", "", interaction.method, None))
            continue
        _, params = queue.popleft()
        check.replayed = True
        if interaction.received is not None and interaction.received != shape(params):
            check.found += classify(
                "answers", interaction.method, interaction.received, shape(params)
            )
    for method, queue in waiting.items():
        for at, _ in queue:
            checked[at].found.append(_rule("server-request-now-sent", "", None, method))
