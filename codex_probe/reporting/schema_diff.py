"""What changed in the protocol between two codex-cli versions, method by method.

Methods and notifications added, removed and changed per union; for each method in
both, its params (and response) fields added, removed, retyped, or made required or
optional. The flattened field maps of `schema_shapes` are compared with deepdiff.
The methods the driver and the spec use come first, then the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from deepdiff import DeepDiff

from codex_probe.harness.codex.schema_shapes import Fields, MethodShape
from codex_probe.harness.driver.touches import driver_touches

# What the spec's design rests on besides what the reference driver touches (which
# codex_probe/harness/driver/touches.py reads from the driver's code): the requests of a compaction,
# a read and a rollback, and the notifications that follow a thread and its turns.
SPEC_METHODS = ("thread/compact/start", "thread/read", "thread/rollback")
SPEC_NOTIFICATIONS = (
    "thread/started",
    "thread/status/changed",
    "turn/started",
    "item/started",
    "item/completed",
    "thread/compacted",
)
_TOUCHES = driver_touches()
# The requests the reference driver sends (its handshake aside) and the spec's design rests on.
DRIVER_METHODS = (
    *sorted(m for m in _TOUCHES.sends if m not in ("initialize", "initialized")),
    *(m for m in SPEC_METHODS if m not in _TOUCHES.sends),
)
# The notifications the driver reads, then those the spec follows a thread and turns by.
DRIVER_NOTIFICATIONS = (
    *sorted(_TOUCHES.reads),
    *(m for m in SPEC_NOTIFICATIONS if m not in _TOUCHES.reads),
)
PRIORITY = (
    *(("client request", method) for method in DRIVER_METHODS),
    *(("server notification", method) for method in DRIVER_NOTIFICATIONS),
)

Status = Literal["added", "removed", "changed", "unchanged", "absent"]
ChangeKind = Literal["added", "removed", "retyped", "now required", "now optional"]


@dataclass(frozen=True)
class FieldChange:
    path: str
    change: ChangeKind
    old: str | None  # the old type ("string|null"), None when the field is new
    new: str | None

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "change": self.change, "old": self.old, "new": self.new}


@dataclass(frozen=True)
class PartDiff:
    """The params or the response of one method, compared."""

    status: Status
    changes: tuple[FieldChange, ...] = ()

    def counts(self) -> dict[str, int]:
        counted: dict[str, int] = {}
        for change in self.changes:
            counted[change.change] = counted.get(change.change, 0) + 1
        return counted

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "changes": [c.to_json() for c in self.changes]}


@dataclass(frozen=True)
class MethodDiff:
    kind: str
    method: str
    status: Status
    params: PartDiff
    response: PartDiff

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "method": self.method,
            "status": self.status,
            "params": self.params.to_json(),
            "response": self.response.to_json(),
        }


@dataclass
class SchemaDiff:
    old_version: str
    new_version: str
    priority: list[MethodDiff] = field(default_factory=list)
    others: dict[str, list[MethodDiff]] = field(default_factory=dict)  # kind -> methods

    def to_json(self) -> dict[str, Any]:
        return {
            "from": self.old_version,
            "to": self.new_version,
            "driver_methods": [d.to_json() for d in self.priority],
            "others": {
                kind: {
                    "added": [d.method for d in diffs if d.status == "added"],
                    "removed": [d.method for d in diffs if d.status == "removed"],
                    "changed": [d.to_json() for d in diffs if d.status == "changed"],
                    "unchanged": sum(d.status == "unchanged" for d in diffs),
                }
                for kind, diffs in self.others.items()
            },
        }


def diff_schemas(
    old: dict[str, dict[str, MethodShape]],
    new: dict[str, dict[str, MethodShape]],
    *,
    old_version: str,
    new_version: str,
) -> SchemaDiff:
    result = SchemaDiff(old_version, new_version)
    for kind, method in PRIORITY:
        result.priority.append(
            diff_method(kind, method, old[kind].get(method), new[kind].get(method))
        )
    for kind in new:
        methods = sorted(set(old.get(kind, {})) | set(new[kind]))
        result.others[kind] = [
            diff_method(kind, m, old.get(kind, {}).get(m), new[kind].get(m))
            for m in methods
            if (kind, m) not in PRIORITY
        ]
    return result


def diff_method(
    kind: str, method: str, old: MethodShape | None, new: MethodShape | None
) -> MethodDiff:
    if old is None and new is None:
        return MethodDiff(kind, method, "absent", PartDiff("absent"), PartDiff("absent"))
    params = diff_fields(old.params if old else None, new.params if new else None)
    response = diff_fields(old.response if old else None, new.response if new else None)
    if old is None:
        status: Status = "added"
    elif new is None:
        status = "removed"
    else:
        same = ("unchanged", "absent")
        changed = params.status not in same or response.status not in same
        status = "changed" if changed else "unchanged"
    return MethodDiff(kind, method, status, params, response)


def diff_fields(old: Fields | None, new: Fields | None) -> PartDiff:
    if old is None and new is None:
        return PartDiff("absent")
    if old is None or new is None:
        # The whole part appeared or went: every field of it is the change.
        fields = new if old is None else old
        assert fields is not None
        kind: ChangeKind = "added" if old is None else "removed"
        whole = tuple(
            FieldChange(
                path,
                kind,
                None if old is None else spec["type"],
                None if new is None else spec["type"],
            )
            for path, spec in sorted(fields.items())
        )
        return PartDiff("added" if old is None else "removed", whole)
    # threshold_to_diff_deeper=0: compare key by key even when few keys are shared.
    tree = DeepDiff(old, new, view="tree", threshold_to_diff_deeper=0)
    changes: list[FieldChange] = []
    for level in tree.get("dictionary_item_added", []):
        path = level.path(output_format="list")[0]
        changes.append(FieldChange(path, "added", None, new[path]["type"]))
    for level in tree.get("dictionary_item_removed", []):
        path = level.path(output_format="list")[0]
        changes.append(FieldChange(path, "removed", old[path]["type"], None))
    for level in tree.get("values_changed", []):
        path, attribute = level.path(output_format="list")[:2]
        if attribute == "type":
            changes.append(FieldChange(path, "retyped", old[path]["type"], new[path]["type"]))
        elif attribute == "required":
            became: ChangeKind = "now required" if new[path]["required"] else "now optional"
            changes.append(FieldChange(path, became, old[path]["type"], new[path]["type"]))
    changes.sort(key=lambda c: (c.path, c.change))
    return PartDiff("changed" if changes else "unchanged", tuple(changes))
