"""The server's stderr tail is plain text: codex colours its log lines for a terminal."""

from __future__ import annotations

import os
import sys

import pytest

from codex_probe.harness.jsonrpc.client import JsonRpcClient
from codex_probe.harness.jsonrpc.errors import ServerExited
from codex_probe.harness.jsonrpc.process import strip_ansi

# A log line as codex 0.171.0 writes it (its tracing output, coloured), plus a link and
# a charset switch, the other escapes a terminal program may write.
COLOURED = (
    "\x1b[2m2026-12-01T13:17:57.479902Z\x1b[0m \x1b[31mERROR\x1b[0m "
    "\x1b[2mcodex_app_server\x1b[0m\x1b[2m:\x1b[0m Codex could not find bubblewrap "
    "\x1b]8;;https://example.invalid\x07(docs)\x1b]8;;\x1b\\ \x1b(B\x1b[1;38;5;196mdone\x1b[m"
)
PLAIN = (
    "2026-12-01T13:17:57.479902Z ERROR codex_app_server: Codex could not find bubblewrap "
    "(docs) done"
)

# Writes the coloured line to stderr, then exits 3 on the first request it reads.
PEER = f"""
import sys
sys.stderr.write({COLOURED!r} + "\\n")
sys.stderr.flush()
sys.stdin.readline()
sys.exit(3)
"""


def test_strip_ansi_leaves_the_text_of_a_coloured_codex_log_line() -> None:
    assert strip_ansi(COLOURED) == PLAIN


async def test_a_colourful_stderr_line_reaches_the_tail_and_the_errors_as_plain_text() -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    client = await JsonRpcClient.spawn([sys.executable, "-c", PEER], env=env)
    try:
        with pytest.raises(ServerExited) as caught:
            await client.request("initialize", {}, timeout=10)
    finally:
        await client.close(grace=0.5)
    assert caught.value.stderr_tail == PLAIN
    assert "\x1b" not in str(caught.value)
    assert client.stderr_tail() == PLAIN


# Writes one line of 65 MiB to stderr (more than the stream's 64 MiB limit), then a short
# one, then exits 3 on the first request it reads.
HUGE_LINE_PEER = """
import sys
chunk = "x" * (1 << 20)
for _ in range(65):
    sys.stderr.write(chunk)
sys.stderr.write("\\nafter the long line\\n")
sys.stderr.flush()
sys.stdin.readline()
sys.exit(3)
"""


async def test_a_stderr_line_over_the_stream_limit_is_cut_in_the_tail_never_an_error() -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    client = await JsonRpcClient.spawn([sys.executable, "-c", HUGE_LINE_PEER], env=env)
    try:
        with pytest.raises(ServerExited) as caught:
            await client.request("initialize", {}, timeout=60)
    finally:
        await client.close(grace=0.5)
    long_line, after = client.stderr_tail().splitlines()
    assert long_line.startswith("x" * 8192 + " ... (")
    assert long_line.endswith(f"({65 * (1 << 20) - 8192} more bytes of this line)")
    assert after == "after the long line"
    assert "after the long line" in caught.value.stderr_tail
