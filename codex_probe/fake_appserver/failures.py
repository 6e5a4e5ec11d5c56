"""The one way a handler refuses a request: raise RequestFailed with the profile's answer."""

from __future__ import annotations


class RequestFailed(Exception):
    """Answer the request with this JSON-RPC error."""

    def __init__(self, code: int, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(message)
