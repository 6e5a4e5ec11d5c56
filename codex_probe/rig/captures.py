"""What the wiretap keeps of each request: masked headers, the parsed body, arrival time.

A model request's `input` is the whole history codex sends the model, so the items of a
tool call turn are read here too: the function calls the model made earlier and the
outputs codex sends back for them (`call_outputs`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MASK = "***"
# Header names whose values are credentials, matched by substring (lowercase).
_SECRET_HEADER_PARTS = ("authorization", "cookie", "api-key", "apikey", "token", "secret")
_SCHEMED_HEADERS = ("authorization", "proxy-authorization")


@dataclass(frozen=True)
class CapturedRequest:
    index: int
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    # Parsed JSON body; None when there is no body or it is not JSON (see body_text).
    body: Any
    body_text: str | None
    received_at: float  # time.monotonic()

    @property
    def is_model_request(self) -> bool:
        return self.method == "POST" and self.path.endswith("/responses")

    @property
    def is_compact_request(self) -> bool:
        return self.method == "POST" and self.path.endswith("/responses/compact")

    @property
    def is_compaction_trigger(self) -> bool:
        """A streamed compaction: a model request whose input ends with a
        `compaction_trigger` item."""
        items = self.input_items()
        last = item_type(items[-1]) if items else None
        return self.is_model_request and last == "compaction_trigger"

    def input_items(self, kind: str | None = None) -> list[Any]:
        """The body's `input` items (of type `kind`, if given); none if it has no input."""
        items = self.body.get("input") if isinstance(self.body, dict) else None
        if not isinstance(items, list):
            return []
        return [item for item in items if kind is None or item_type(item) == kind]

    def call_outputs(self) -> dict[str, str]:
        """The output codex sends back for each function call in the input, by call id."""
        return {
            str(item.get("call_id")): output_text(item.get("output"))
            for item in self.input_items("function_call_output")
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "method": self.method,
            "path": self.path,
            "query": self.query,
            "headers": self.headers,
            "body": self.body,
            "body_text": self.body_text if self.body is None else None,
            "received_at": self.received_at,
        }


def item_type(item: Any) -> Any:
    return item.get("type") if isinstance(item, dict) else None


def output_text(output: Any) -> str:
    """A function call output as text: a string as it is, content parts joined."""
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "".join(str(part.get("text", "")) for part in output if isinstance(part, dict))
    return "" if output is None else str(output)


def mask_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Lowercased headers with credential values masked (the scheme is kept)."""
    masked: dict[str, str] = {}
    for name, value in headers.items():
        key = name.lower()
        if not any(part in key for part in _SECRET_HEADER_PARTS):
            masked[key] = value
        elif key in _SCHEMED_HEADERS and " " in value:
            # "Bearer ***" still tells whether (and how) a credential was sent.
            masked[key] = f"{value.split(' ', 1)[0]} {MASK}"
        else:
            masked[key] = MASK
    return masked
