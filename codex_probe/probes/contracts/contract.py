"""A client's contract: what one app-server client sent codex and what it received, as
`codex-probe record` recorded it, for `codex-probe verify` to replay on any release.

    {
      "format": 1,
      "tool": "codex-probe ...",
      "recorded_on": "0.163.0",                 the codex-cli release it was recorded on
      "recorded_at": "2026-12-03T10:00:00Z",
      "command": ["python", "client.py"],        what ran (as given to record)
      "processes": [                             each app-server the client started, in order
        {"args": ["app-server", "--listen", "stdio://"],
         "interactions": [
           {"kind": "request",                   the client asked (request), told
                                                 (notification), or answered codex's request
            "method": "thread/start",
            "params": {...},                     as sent: paths as <work> and <home>
            "sent": {PATH: TYPE},                the shape of what the client sent
            "enum_values": {PATH: [VALUE]},      what it sent where the schema has an enum
            "outcome": "answered",               answered | refused | unanswered | none
            "received": {PATH: TYPE},            the answer's shape (a request: its result;
                                                 an answer: codex's request's params)
            "refusal": {"code": ..., "message": ...} or null,
            "ids": {PATH: ID},                   the ids codex gave in what it received, to
                                                 map onto the replay's
            "notifications": [LABEL],            the lifecycle notifications codex sent after
                                                 it, before the client's next request
            "notification_shapes": {LABEL: {PATH: TYPE}},
            "answer": ...}                       an answer's result, as sent
         ]}
      ]
    }

Paths are the shape's (`thread.id`, `input[].type`; schema_shapes' variant labels left
out), types its (`string`, `null|object`). A file of another format, or not of this shape,
is refused in one line naming the field (`ContractError`); the JSON schema beside this
module (`contract.schema.json`, `python -m codex_probe.probes.contracts.contract` prints
it) is generated from these structs and a test holds the two equal. A new format bumps
FORMAT; a reader refuses a newer one rather than half-read it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from codex_probe.harness.files import read_json, write_json

FORMAT = 1
SCHEMA_FILE = Path(__file__).resolve().parent / "contract.schema.json"
WORK, HOME = "<work>", "<home>"

Kind = Literal["request", "notification", "answer"]
Outcome = Literal["answered", "refused", "unanswered", "none"]


def described(text: str) -> msgspec.Meta:
    return msgspec.Meta(description=text)


class Refusal(msgspec.Struct):
    code: Annotated[int | None, described("The JSON-RPC error code.")]
    message: Annotated[str, described("Its message (ids and paths as recorded).")]


class Interaction(msgspec.Struct, kw_only=True):
    """One message of the client's and what came back for it."""

    kind: Annotated[
        Kind,
        described(
            "request: the client asked; notification: it told codex; answer: it answered a "
            "request codex made of it (an approval, say)."
        ),
    ]
    method: Annotated[str, described("The method (of codex's request, for an answer).")]
    params: Annotated[Any, described("What the client sent, paths as <work> and <home>.")] = None
    sent: Annotated[dict[str, str], described("The shape of what the client sent.")] = {}
    enum_values: Annotated[
        dict[str, list[str]],
        described("The values it sent where the recording release's schema has an enum."),
    ] = {}
    outcome: Annotated[
        Outcome, described("What codex did with a request (none: not a request).")
    ] = "none"
    received: Annotated[
        dict[str, str] | None,
        described("The shape the client received: a request's result, codex's request's params."),
    ] = None
    refusal: Annotated[Refusal | None, described("A refused request's error.")] = None
    ids: Annotated[
        dict[str, str], described("Ids codex gave in what the client received, by path.")
    ] = {}
    notifications: Annotated[
        list[str],
        described("The lifecycle notifications codex sent after it, in order (labels)."),
    ] = []
    notification_shapes: Annotated[
        dict[str, dict[str, str]], described("Per notification label, its params' shape.")
    ] = {}
    notification_ids: Annotated[
        dict[str, dict[str, str]], described("Per notification label, the ids in its params.")
    ] = {}
    answer: Annotated[Any, described("An answer's result as the client sent it.")] = None


class Process(msgspec.Struct):
    """One app-server the client started."""

    args: Annotated[list[str], described("Its arguments after the codex binary.")]
    interactions: Annotated[list[Interaction], described("In the order the client sent them.")]


class Contract(msgspec.Struct, kw_only=True):
    """A client's recorded use of the app-server protocol."""

    format: Annotated[int, described(f"The contract format: {FORMAT}.")]
    tool: Annotated[str, described("The codex-probe that recorded it.")]
    recorded_on: Annotated[str, described("The codex-cli release it was recorded on.")]
    recorded_at: Annotated[str, described("When (UTC, ISO 8601).")]
    command: Annotated[list[str], described("The client command that ran.")]
    processes: Annotated[list[Process], described("Each app-server it started, in order.")]

    def methods(self) -> set[tuple[Kind, str]]:
        return {(i.kind, i.method) for p in self.processes for i in p.interactions}


class ContractError(ValueError):
    """A file that is not a contract this tool reads: one line, naming where."""


def load_contract(path: Path) -> Contract:
    document = read_json(path, ContractError, "contract file")
    if not isinstance(document, dict) or "processes" not in document:
        raise ContractError(
            f"{path}: not a contract (no 'processes'; `codex-probe record` writes one)"
        )
    found = document.get("format")
    if isinstance(found, int) and found > FORMAT:
        raise ContractError(
            f"{path}: contract format {found} is newer than this codex-probe reads ({FORMAT}): "
            "upgrade codex-probe"
        )
    if found != FORMAT:
        raise ContractError(f"{path}: contract format {found!r}, this codex-probe reads {FORMAT}")
    try:
        return msgspec.convert(document, type=Contract)
    except msgspec.ValidationError as error:
        raise ContractError(f"{path}: not a contract: {error}") from None


def write_contract(path: Path, contract: Contract) -> None:
    """Written whole or not at all (write_json writes a temporary file and renames it)."""
    write_json(path, msgspec.to_builtins(contract))


def contract_schema() -> dict[str, Any]:
    schema: dict[str, Any] = msgspec.json.schema(Contract)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"codex-probe client contract, format {FORMAT}",
        "description": (__doc__ or "").strip().split("\n\n")[0],
        **schema,
    }


def schema_text() -> str:
    return json.dumps(contract_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    from codex_probe.probes.contracts.contract import schema_text as named_schema_text

    sys.stdout.write(named_schema_text())
