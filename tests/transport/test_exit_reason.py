"""A server that dies says why: its exit code and the error on its stderr reach the error
the client raises, whichever way the client learns of the death (stdout ends, or a write
finds stdin closed), and the summary names the line of stderr that gives the reason."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from codex_probe.harness.jsonrpc.client import JsonRpcClient
from codex_probe.harness.jsonrpc.errors import ServerExited, reason_in

DEADLINE_S = 10.0
SEAL_ERROR = "codex-probe seal: [Errno 2] No such file or directory: 'codex-probe-x1'"
# Closes its stdin (as a sealed launch that failed is gone before it reads), says why on
# stderr, tells the test through the FIFO `ready`, and exits 126 once the FIFO `go` is
# opened and closed.
CLOSES_STDIN_THEN_EXITS = f"""
import os, select, sys
go = os.open(sys.argv[2], os.O_RDONLY | os.O_NONBLOCK)  # open before `ready`: a writer may come
os.close(0)
sys.stderr.write({SEAL_ERROR!r} + "\\n")
sys.stderr.flush()
with open(sys.argv[1], "w") as ready:
    ready.write("stdin closed\\n")
select.select([go], [], [])  # until a writer has opened and closed it
sys.exit(126)
"""
CLAP_USAGE_ERROR = (
    "error: unexpected argument '--listen' found\n\n"
    "Usage: codex app-server [OPTIONS]\n\n"
    "For more information, try '--help'.\n"
)


async def readable(fifo: Path) -> None:
    """Wait, within the deadline, until a writer has written to `fifo` and closed it."""
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    loop = asyncio.get_running_loop()
    ready = asyncio.Event()
    loop.add_reader(fd, ready.set)
    try:
        async with asyncio.timeout(DEADLINE_S):
            await ready.wait()
    finally:
        loop.remove_reader(fd)
        os.close(fd)


def release(fifo: Path) -> None:
    """Open `fifo` for writing and close it: its reader sees the end of it."""
    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


async def test_a_request_to_a_server_that_closed_its_stdin_fails_with_its_exit_and_stderr(
    tmp_path: Path,
) -> None:
    ready, go = tmp_path / "ready", tmp_path / "go"
    os.mkfifo(ready)
    os.mkfifo(go)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    peer = [sys.executable, "-c", CLOSES_STDIN_THEN_EXITS, str(ready), str(go)]
    client = await JsonRpcClient.spawn(peer, env=env)
    try:
        await readable(ready)
        request = asyncio.create_task(client.request("initialize", {}, timeout=DEADLINE_S))
        # Queued after the request's first step, which writes to the closed stdin: only
        # then does the peer exit.
        asyncio.get_running_loop().call_soon(release, go)
        with pytest.raises(ServerExited) as caught:
            await request
    finally:
        await client.close(grace=0.5)
    assert caught.value.returncode == 126
    assert caught.value.method == "initialize"
    assert caught.value.stderr_tail == SEAL_ERROR
    assert caught.value.summary.endswith(f"(exit code 126): {SEAL_ERROR}")


async def test_a_server_that_exits_with_an_error_names_it_in_the_summary() -> None:
    peer = f"import sys; sys.stderr.write({CLAP_USAGE_ERROR!r}); sys.stdin.readline(); exit(2)"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    client = await JsonRpcClient.spawn([sys.executable, "-c", peer], env=env)
    try:
        with pytest.raises(ServerExited) as caught:
            await client.request("initialize", {}, timeout=DEADLINE_S)
    finally:
        await client.close(grace=0.5)
    assert caught.value.summary == (
        "server exited before answering initialize (id 1) (exit code 2): "
        "error: unexpected argument '--listen' found"
    )


@pytest.mark.parametrize(
    ("stderr", "reason"),
    [
        (CLAP_USAGE_ERROR, "error: unexpected argument '--listen' found"),
        (SEAL_ERROR + "\n", SEAL_ERROR),
        (
            "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\n"
            "Error: Cannot find module '/c/0.171.0/node_modules/.bin/codex'\n"
            "    at Module._resolveFilename (node:internal)\n",
            "Error: Cannot find module '/c/0.171.0/node_modules/.bin/codex'",
        ),
        ("fake-codex: bad.jsonl:3: unknown action 'explode'\n", None),
        ("", ""),
    ],
)
def test_the_reason_of_a_dying_server_is_its_last_line_that_names_an_error(
    stderr: str, reason: str | None
) -> None:
    assert reason_in(stderr) == (stderr.strip() if reason is None else reason)
