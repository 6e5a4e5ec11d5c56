"""The JSON schema type name of a decoded JSON value: one function for the surface's shapes,
the exploration's schema values and the fake's request checks."""

from __future__ import annotations

from typing import Any


def json_type(value: Any) -> str:
    """`null`, `boolean`, `integer`, `number`, `string`, `array` or `object` (a value that
    is none of JSON's, which a decoder never gives, is named by its Python type)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__
