"""Asyncio JSON-RPC over a child process's stdio (newline-delimited, codex dialect)."""

from harness.jsonrpc.client import DEFAULT_TIMEOUT, JsonRpcClient
from harness.jsonrpc.errors import (
    ConnectionClosed,
    JsonRpcError,
    MalformedFrame,
    NotificationTimeout,
    RequestTimeout,
    ServerError,
    ServerExited,
    TransportError,
)
from harness.jsonrpc.framing import Notification, Request, RequestId
from harness.jsonrpc.transcript import Transcript, mask_secrets, read_transcript

__all__ = [
    "DEFAULT_TIMEOUT",
    "ConnectionClosed",
    "JsonRpcClient",
    "JsonRpcError",
    "MalformedFrame",
    "Notification",
    "NotificationTimeout",
    "Request",
    "RequestId",
    "RequestTimeout",
    "ServerError",
    "ServerExited",
    "Transcript",
    "TransportError",
    "mask_secrets",
    "read_transcript",
]
