"""The first request, read and answered before the server's heavy imports (asyncio above all).

A client's first request is `initialize`, and it waits for the answer before it sends
more than `initialized`. So the fake reads that line straight from stdin, answers it as
the server would (handshake.py), and only then imports the server, which takes over
whatever was read after the line. A first line that is anything else, or an
`initialize` the fault script has a rule for, is left to the server as it was read.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from codex_probe.fake_appserver.handshake import declares_experimental_api, initialize_result
from codex_probe.fake_appserver.profile import Profile
from codex_probe.fake_appserver.request_check import refusal_of
from codex_probe.fake_appserver.script import FaultScript
from codex_probe.harness.jsonrpc.framing import FrameError, Request, decode, encode, response_frame

STDIN = 0
READ_SIZE = 64 * 1024


@dataclass(frozen=True)
class FirstRequest:
    read: bytes  # read from stdin and not answered here: the server's to handle
    client_name: str | None  # the client's name if initialize was answered here, else None
    experimental_api: bool = False  # that initialize declared the experimentalApi capability


def answer_first_request(profile: Profile, codex_home: Path, script: FaultScript) -> FirstRequest:
    if any(rule.method == "initialize" for rule in script.rules):
        return FirstRequest(read=b"", client_name=None)
    read = _first_line()
    line, newline, rest = read.partition(b"\n")
    message = _request(line) if newline else None
    if message is None or message.method != "initialize":
        return FirstRequest(read=read, client_name=None)
    params = message.params or {}  # as the server reads a request's params
    if not isinstance(params, dict) or not isinstance(params.get("clientInfo") or {}, dict):
        return FirstRequest(read=read, client_name=None)  # the server's to refuse or fail on
    if profile.book is not None and refusal_of(profile.book, "initialize", params):
        return FirstRequest(read=read, client_name=None)  # refused by the server, as codex does
    script.next_fault("initialize")  # counted as the server counts every request
    client_name, result = initialize_result(profile, codex_home, params)
    # A stdout that is gone fails the same way for the server's next write, which notes it.
    with contextlib.suppress(BrokenPipeError, ValueError, OSError):
        sys.stdout.buffer.write(encode(response_frame(message.id, result)))
        sys.stdout.buffer.flush()
    return FirstRequest(
        read=rest, client_name=client_name, experimental_api=declares_experimental_api(params)
    )


def _request(line: bytes) -> Request | None:
    try:
        message, _ = decode(line)
    except FrameError:
        return None
    return message if isinstance(message, Request) else None


def _first_line() -> bytes:
    """What stdin holds up to its first newline, and whatever arrived with it."""
    pieces: list[bytes] = []
    while True:
        try:
            piece = os.read(STDIN, READ_SIZE)
        except OSError:  # no stdin at all, or one that cannot be read this way
            break
        pieces.append(piece)
        if not piece or b"\n" in piece:
            break
    return b"".join(pieces)
