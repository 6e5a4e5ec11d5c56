"""The building blocks of a profile's typed model: a strict part, and a measured entry."""

from __future__ import annotations

from typing import Annotated, Generic, TypeVar

import msgspec

T = TypeVar("T")


class Model(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A part of a profile: every field required, no field the model does not know."""


Evidence = Annotated[str, msgspec.Meta(min_length=1)]


class Measured(Model, Generic[T], frozen=True):
    value: T
    measured: bool
    evidence: Evidence


class ErrorAnswer(Model, frozen=True):
    """A JSON-RPC error as codex answers it; `message` is a str.format template."""

    code: int
    message: str

    def answer(self, **values: object) -> tuple[int, str]:
        return self.code, self.message.format(**values)
