"""Start `BINARY app-server` (the real codex or the fake: same command line) and shake hands.

Every app-server starts sealed (`harness.codex.seal`): it cannot see the host's
`/etc/codex` or a `.git` above its working directory. The fake is started the same way,
though it reads neither, so both run under the same conditions and stay comparable. A
`WarmLaunch` starts it as a fork of a warm copy (`harness.forks`) instead of an exec of its
launcher: the same argv, environment, working folder and seal, without a Python start.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.one_cpu import on_one_cpu
from codex_probe.harness.codex.seal import seal_launch, seal_options
from codex_probe.harness.forks.client import ForkServer
from codex_probe.harness.jsonrpc.client import JsonRpcClient
from codex_probe.harness.jsonrpc.process import ServerProcess
from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.harness.parent_death import bound_to_this_process

CLIENT_NAME = "codex-probe"
CLIENT_VERSION = "0.1.0"
HANDSHAKE_TIMEOUT = 60.0


@dataclass(frozen=True)
class WarmLaunch:
    """BINARY (a launcher script) started as a fork of `forks`' warm process: `options` are
    what the launcher puts before the arguments it is given."""

    forks: ForkServer
    options: tuple[str, ...]


def app_server_argv(binary: Path | str, config_overrides: Sequence[str] = ()) -> list[str]:
    argv = [str(binary), "app-server", "--listen", "stdio://"]
    for override in config_overrides:
        argv += ["-c", override]
    return argv


async def open_app_server(
    binary: Path | str,
    *,
    env: Mapping[str, str],
    cwd: Path | None = None,
    config_overrides: Sequence[str] = (),
    transcript: Transcript | None = None,
    initialize: bool = True,
    timeout: float = HANDSHAKE_TIMEOUT,
    one_cpu: bool = False,
    warm: WarmLaunch | None = None,
) -> tuple[JsonRpcClient, dict[str, Any] | None]:
    """A client bound to a new app-server process, initialized unless asked not to; with
    `one_cpu`, the process runs on one CPU (`harness.codex.one_cpu`: codex costs less so);
    with `warm`, a fork of a warm process (`one_cpu` aside: it is for codex).

    Returns the client and the `initialize` result. If the handshake fails the
    process is ended before the error propagates.
    """
    # The first launch of a process checks what the host allows (a subprocess): not on the loop.
    plain = app_server_argv(binary, config_overrides)
    if warm is not None:
        where = cwd if cwd is not None else Path(os.getcwd())
        seal, _ = await asyncio.to_thread(seal_options, cwd=where)
        forked = [plain[0], *warm.options, *plain[1:]]
        server = await ServerProcess.start_forked(warm.forks, forked, env=env, cwd=where, seal=seal)
        client = JsonRpcClient(server, transcript=transcript)
    else:
        argv, _ = await asyncio.to_thread(seal_launch, plain, cwd=cwd)
        if argv == plain:
            # A host that cannot seal: the seal's helper, which also ties the app-server's
            # life to ours, does not run, so this one does.
            argv = bound_to_this_process(plain)
        if one_cpu:
            argv = on_one_cpu(argv)
        client = await JsonRpcClient.spawn(argv, env=env, cwd=cwd, transcript=transcript)
    if not initialize:
        return client, None
    try:
        result = await client.request(
            "initialize",
            {"clientInfo": {"name": CLIENT_NAME, "version": CLIENT_VERSION}},
            timeout=timeout,
        )
        await client.notify("initialized")
    except BaseException:
        await client.close(grace=0.5)
        raise
    return client, result
