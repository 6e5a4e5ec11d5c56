"""Check JSON-RPC messages against the protocol schema a codex binary generated.

A request or notification is checked against the variant of its union
(ClientRequest, ClientNotification, ServerNotification, ServerRequest) whose method
it names; a response against `<Name>Response.json` of the request it answers, found
through the request's params type (`ThreadStartParams` -> `ThreadStartResponse`).

Each schema is checked twice over only when a message breaks it: jsonschema_rs says whether a
message is valid (an exploration's 6,447 messages of 0.171.0 in 0.16 CPU-seconds, its
validators compiled; jsonschema took 2.9), and jsonschema, for the few that are not, says
how, in the words every report of a violation has used. A test holds the two to the same
answer on messages broken every way the schema allows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import jsonschema_rs
from jsonschema import Draft7Validator, ValidationError

# How many files of releases' schemas a process keeps parsed (validators here, documents in
# probes/domain/surface/enumerated.py): seven releases' worth (72 to 75 files a release were
# read in a history of 0.145.0 to 0.149.1), more than a history has in flight. Kept without a
# bound, a history's process held every release's for good: two thirds of its live memory
# blocks after six releases (578,000 of 861,000; the parsed documents alone 4.5 MB a release),
# which every full collection goes over. (Its peak RSS over 24 releases was the same with
# the bound, 353 MB against 356: what is freed stays with Python's allocator.)
SCHEMA_FILES_KEPT = 512

Kind = Literal[
    "client request",
    "client notification",
    "client response",
    "server request",
    "server notification",
    "server response",
]
# Which union file holds the variants of each kind of message.
UNION_FILES: dict[str, str] = {
    "client request": "ClientRequest.json",
    "client notification": "ClientNotification.json",
    "server request": "ServerRequest.json",
    "server notification": "ServerNotification.json",
}
ERROR_SHAPE: dict[str, Any] = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
}


@dataclass(frozen=True)
class Violation:
    """One way a message breaks the schema: which message, where in it, and what."""

    kind: str
    method: str | None
    where: str
    problem: str
    entry: int | None = None

    def __str__(self) -> str:
        at = f"entry {self.entry}: " if self.entry is not None else ""
        method = f" {self.method}" if self.method else ""
        return f"{at}{self.kind}{method} at {self.where}: {self.problem}"


class Checker:
    """One schema's two validators, each made when first needed: the fast one answers
    whether an instance is valid, the other how it is not."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self._fast: jsonschema_rs.Draft7Validator | None = None
        self._fast_refused = False
        self._full: Draft7Validator | None = None

    def violations(self, instance: Any) -> list[ValidationError]:
        """jsonschema's errors of `instance`, none when the fast validator finds it valid."""
        if self._fast is None and not self._fast_refused:
            try:
                # Formats unchecked, as jsonschema's Draft7Validator leaves them by default.
                self._fast = jsonschema_rs.Draft7Validator(self.schema, validate_formats=False)
            except ValueError:
                # A schema it will not compile (a release's pattern it cannot read): the
                # slow validator alone, as before there was a fast one.
                self._fast_refused = True
        if self._fast is not None and self._fast.is_valid(instance):
            return []
        if self._full is None:
            self._full = Draft7Validator(self.schema)
        return list(self._full.iter_errors(instance))


@dataclass(frozen=True)
class _Variant:
    method: str
    checker: Checker
    params_type: str | None


class MessageValidator:
    """Validates single messages against one schema folder."""

    def __init__(self, schema_dir: Path) -> None:
        self.schema_dir = schema_dir
        if not (schema_dir / "ClientRequest.json").is_file():
            raise FileNotFoundError(
                f"{schema_dir} holds no generated schema (no ClientRequest.json)"
            )
        self._variants = {kind: self._load_union(name) for kind, name in UNION_FILES.items()}
        self._error_checker = Checker(ERROR_SHAPE)

    def _load_union(self, file_name: str) -> dict[str, _Variant]:
        union = json.loads((self.schema_dir / file_name).read_text())
        definitions = union.get("definitions", {})
        variants: dict[str, _Variant] = {}
        for variant in union.get("oneOf", []):
            method = variant["properties"]["method"]["enum"][0]
            params_ref = variant["properties"].get("params", {}).get("$ref", "")
            schema = {**variant, "definitions": definitions}
            variants[method] = _Variant(
                method, Checker(schema), params_ref.rsplit("/", 1)[-1] or None
            )
        return variants

    def methods(self, kind: str) -> list[str]:
        return sorted(self._variants[kind])

    def check(
        self, kind: Kind, message: dict[str, Any], *, method: str | None = None
    ) -> list[Violation]:
        """Violations of one message; `method` names the request a response answers."""
        if kind in UNION_FILES:
            return self._check_variant(kind, message)
        return self._check_response(kind, message, method)

    def _check_variant(self, kind: str, message: dict[str, Any]) -> list[Violation]:
        method = message.get("method")
        variant = self._variants[kind].get(str(method))
        if variant is None:
            return [
                Violation(
                    kind,
                    str(method),
                    "method",
                    f"{method!r} is not a {kind} method of this codex version",
                )
            ]
        body = {k: v for k, v in message.items() if k != "jsonrpc"}
        return _errors(variant.checker, body, kind, str(method))

    def _check_response(
        self, kind: str, message: dict[str, Any], method: str | None
    ) -> list[Violation]:
        if "error" in message:
            return _errors(self._error_checker, message["error"], kind, method, prefix="error")
        if method is None:
            return [
                Violation(
                    kind, None, "id", f"answers no request we know of (id {message.get('id')!r})"
                )
            ]
        request_kind = "client request" if kind == "server response" else "server request"
        checker = self._response_checker(request_kind, method)
        if checker is None:
            return []  # this version publishes no response type for the method
        return _errors(checker, message.get("result"), kind, method, prefix="result")

    def has_response_schema(self, request_kind: str, method: str) -> bool:
        return self._response_checker(request_kind, method) is not None

    def _response_checker(self, request_kind: str, method: str) -> Checker | None:
        variant = self._variants[request_kind].get(method)
        names = [_camel(method) + "Response"]
        if variant is not None and variant.params_type and variant.params_type.endswith("Params"):
            names.insert(0, variant.params_type.removesuffix("Params") + "Response")
        for name in names:
            if (path := _find_schema_file(self.schema_dir, name)) is not None:
                return _file_checker(path)
        return None


def _camel(method: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in method.replace("/", " ").split())


def _find_schema_file(schema_dir: Path, name: str) -> Path | None:
    for folder in ("", "v2", "v1"):
        path = schema_dir / folder / f"{name}.json"
        if path.is_file():
            return path
    return None


@lru_cache(maxsize=SCHEMA_FILES_KEPT)
def _file_checker(path: Path) -> Checker:
    return Checker(json.loads(path.read_text()))


def _errors(
    checker: Checker, instance: Any, kind: str, method: str | None, prefix: str = ""
) -> list[Violation]:
    found = []
    for error in sorted(
        checker.violations(instance), key=lambda e: list(map(str, e.absolute_path))
    ):
        parts = [prefix] if prefix else []
        parts += [str(p) for p in error.absolute_path]
        problem = error.message if len(error.message) <= 300 else error.message[:297] + "..."
        found.append(Violation(kind, method, ".".join(parts) or "(message)", problem))
    return found
