"""Children forked from a warm process (harness/forks) behave as exec'd ones do: their own
session, the cwd, environment, argv and seal they were given, their exit code or signal as
returncode, and no life beyond the warm process's or ours."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_probe.fake_appserver.launcher import import_roots
from codex_probe.harness.codex.seal import namespace_support, seal_options
from codex_probe.harness.forks import client
from codex_probe.harness.forks.client import ForkServer, ForkServerError, available
from codex_probe.harness.jsonrpc.process import ServerProcess

REPO = Path(__file__).resolve().parents[2]
ENTRY = "tests.fork_programs:main"
DEADLINE_S = 30.0
# Starts in a row where a race between a start and what follows it would show.
STARTS = 20

pytestmark = pytest.mark.skipif(not available(), reason="this host cannot run a fork server")


@pytest.fixture
def forks() -> Iterator[ForkServer]:
    server = ForkServer(ENTRY, ["json"], [str(REPO), *import_roots()])
    yield server
    server.close()


async def started(
    forks: ForkServer, *argv: str, cwd: Path, env: dict[str, str] | None = None
) -> ServerProcess:
    seal, _ = seal_options(cwd=cwd)
    return await ServerProcess.start_forked(
        forks, ["program", *argv], env=env or {}, cwd=cwd, seal=seal
    )


def real(path: Path) -> str:
    return str(path.resolve())


def exists(path: str) -> bool:
    return os.path.lexists(path)


async def stdout_of(server: ServerProcess) -> bytes:
    """Everything the child writes to stdout, once it has ended."""
    chunks: list[bytes] = []
    ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    server.read_stdout(chunks.append, lambda _: ended.set_result(None))
    async with asyncio.timeout(DEADLINE_S):
        await ended
    return b"".join(chunks)


async def test_a_forked_child_runs_in_its_own_session_with_what_it_was_given(
    forks: ForkServer, tmp_path: Path
) -> None:
    server = await started(forks, "report", cwd=tmp_path, env={"ONLY": "this"})
    server.stdin.write(b"hello\n")
    report = json.loads(await stdout_of(server))
    assert await server.shutdown() == 0
    assert report["session_leader"] and report["group_leader"]
    assert report["pid"] == server.pid
    assert report["cwd"] == real(tmp_path)
    assert report["env"] == {"ONLY": "this"}  # nothing of the warm process's own
    assert report["argv"] == ["program", "report"]
    assert report["stdin"] == "hello\n"
    assert "to stderr" in server.stderr_tail()


async def test_ps_shows_a_forked_child_by_the_command_line_it_was_given(
    forks: ForkServer, tmp_path: Path
) -> None:
    server = await started(forks, "echo", "--listen", "stdio://", cwd=tmp_path)
    server.stdin.write(b"up\n")
    seen: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def echoed(_: bytes) -> None:
        if not seen.done():
            seen.set_result(None)

    server.read_stdout(echoed, lambda _: None)
    async with asyncio.timeout(DEADLINE_S):
        await seen  # the child has run its own code, its title set before
    shown = command_line(server.pid)
    await server.shutdown()
    assert shown.split() == ["program", "echo", "--listen", "stdio://"]


def command_line(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()


async def test_a_forked_child_below_a_git_folder_does_not_see_its_git_entry(
    forks: ForkServer, tmp_path: Path
) -> None:
    if not namespace_support().available:
        pytest.skip("this host cannot seal")
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "README").write_text("kept\n")
    work = tmp_path / "repo" / "work"
    work.mkdir()
    git, kept = str(tmp_path / "repo" / ".git"), str(tmp_path / "repo" / "README")
    server = await started(forks, "report", git, kept, cwd=work)
    server.stdin.close()
    report = json.loads(await stdout_of(server))
    await server.shutdown()
    assert report["exists"] == {git: False, kept: True}
    assert exists(git)  # hidden from the child only


@pytest.mark.parametrize(
    ("argv", "code", "said"),
    [
        (["exit", "3"], 3, ""),
        (["raise"], 1, "ValueError: raised on purpose"),
        (["nothing"], 1, "no action 'nothing'"),
    ],
)
async def test_a_forked_childs_exit_code_and_last_words_are_its_own(
    forks: ForkServer, tmp_path: Path, argv: list[str], code: int, said: str
) -> None:
    server = await started(forks, *argv, cwd=tmp_path)
    async with asyncio.timeout(DEADLINE_S):
        assert await server.process.wait() == code
    assert await server.shutdown() == code
    assert said in server.stderr_tail()


async def test_a_forked_child_killed_by_a_signal_has_minus_the_signal_as_its_returncode(
    forks: ForkServer, tmp_path: Path
) -> None:
    # Signalled the moment its start returns, as a shutdown right after a start does: its
    # process group exists by then (under load, a fork reported before the child had made
    # its session lost the signal: ProcessLookupError).
    for _ in range(STARTS):
        server = await started(forks, "echo", cwd=tmp_path)
        os.killpg(server.pid, signal.SIGTERM)
        async with asyncio.timeout(DEADLINE_S):
            assert await server.process.wait() == -signal.SIGTERM
        await server.shutdown()


async def test_a_forked_child_ends_when_its_stdin_does_and_echoes_until_then(
    forks: ForkServer, tmp_path: Path
) -> None:
    server = await started(forks, "echo", cwd=tmp_path)
    server.stdin.write(b"one\ntwo\n")
    server.stdin.close()
    assert await stdout_of(server) == b"one\ntwo\n"
    assert await server.shutdown() == 0


async def test_children_die_with_their_warm_process_and_the_next_start_makes_another(
    forks: ForkServer, tmp_path: Path
) -> None:
    server = await started(forks, "echo", cwd=tmp_path)
    warm = forks.pid
    assert warm is not None
    os.kill(warm, signal.SIGKILL)
    async with asyncio.timeout(DEADLINE_S):
        assert await server.process.wait() == -signal.SIGKILL
    await server.shutdown()
    again = await started(forks, "exit", "0", cwd=tmp_path)
    assert await again.shutdown() == 0
    assert forks.pid not in (None, warm)


async def test_closing_the_fork_server_ends_the_children_still_running(
    forks: ForkServer, tmp_path: Path
) -> None:
    servers = [await started(forks, "echo", cwd=tmp_path) for _ in range(STARTS)]
    await asyncio.to_thread(forks.close)
    for server in servers:
        async with asyncio.timeout(DEADLINE_S):
            assert await server.process.wait() == -signal.SIGKILL
        await server.shutdown()
        assert not exists(f"/proc/{server.pid}")  # waited for, not a zombie


async def test_the_warm_process_is_out_of_the_terminals_process_group(
    forks: ForkServer, tmp_path: Path
) -> None:
    server = await started(forks, "exit", "0", cwd=tmp_path)
    await server.shutdown()
    warm = forks.pid
    assert warm is not None
    assert os.getsid(warm) == warm  # a Ctrl-C in the terminal does not reach it


async def test_a_warm_process_that_cannot_start_says_why(tmp_path: Path) -> None:
    broken = ForkServer("tests.fork_programs:no_such_function", [], [str(REPO), *import_roots()])
    try:
        with pytest.raises(ForkServerError, match="no_such_function"):
            await started(broken, "exit", "0", cwd=tmp_path)
    finally:
        broken.close()


async def test_a_ctrl_c_after_a_pipe_was_handed_to_its_stream_is_not_replaced_by_a_close_error(
    forks: ForkServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """asyncio.Runner raises KeyboardInterrupt wherever the main thread stands: here, just
    after the child's stdin went to its stream (which owns and has closed it)."""
    owned: list[int] = []

    async def interrupted_writer(loop: asyncio.AbstractEventLoop, fd: int) -> None:
        owned.append(fd)
        os.close(fd)  # the stream's to close, and closed
        raise KeyboardInterrupt

    monkeypatch.setattr(client, "_writer", interrupted_writer)
    with pytest.raises(KeyboardInterrupt):
        await started(forks, "report", cwd=tmp_path)
    assert owned
