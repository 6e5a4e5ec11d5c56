"""The warm process: imports a program once, then forks a copy of itself for each start.

Started by `harness/forks/client.py` (`python -I -S -c`, calling `serve`) with a connected
SOCK_SEQPACKET socket on the descriptor it is given. It imports the modules it is told to,
says it is ready, and then waits on the socket and on a pidfd per child, one thread:

- a start (JSON: argv, env, cwd, the seal's options) with three descriptors (the child's
  stdin, stdout and stderr): it forks; the child becomes the leader of a new session, takes
  the descriptors as 0, 1 and 2, seals itself (`harness.codex.seal`; or only moves to `cwd`
  and dies with this process where the host cannot seal), takes `env` as its environment and
  calls the program's function with argv[1:], and exits with what it returned. The answer
  names the child's pid once the child has its session and seal (a pipe it closes then), so
  that a signal sent to its process group at once finds it;
- a child's end: its exit status, as a subprocess's returncode (negative: the signal).

It ends when the socket does (the harness is gone: it kills and waits for the children
still running) or when it is killed (they die with it: the parent-death signal each asks
for). It never writes to its own stdout, so nothing buffered there reaches a child.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import select
import selectors
import shlex
import signal
import socket
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import setproctitle

from codex_probe.harness.codex.seal import seal_this_process
from codex_probe.harness.parent_death import die_with

# A start's JSON (argv and environment) is far below this.
MESSAGE_LIMIT = 1 << 20
STDIO = 3
# A child sets itself up (a session, the seal) in milliseconds; one that has not in this
# long is killed, and its start ends with its exit.
SET_UP_TIMEOUT = 20.0
# As a shell says of a command it cannot run.
EXIT_CANNOT_RUN = 127

Program = Callable[[Sequence[str]], int | None]


def send(control: socket.socket, message: dict[str, Any]) -> None:
    control.send(json.dumps(message).encode())


def resolve(entry: str) -> Program:
    """`package.module:function` imported."""
    module, _, name = entry.partition(":")
    function: Program = getattr(importlib.import_module(module), name)
    return function


def serve(control_fd: int, entry: str, preload: Sequence[str]) -> int:
    for name in preload:
        importlib.import_module(name)
    program = resolve(entry)
    setproctitle.setproctitle(f"codex-probe warm copy of {entry}")
    control = socket.socket(fileno=control_fd)
    selector = selectors.DefaultSelector()
    selector.register(control, selectors.EVENT_READ, None)
    send(control, {"ready": os.getpid()})
    while True:
        for key, _ in selector.select():
            if key.data is None:
                if not _start(control, selector, program):
                    _end_children(selector)
                    return 0
            else:
                _reap(control, selector, key.fd, key.data)


def _end_children(selector: selectors.BaseSelector) -> None:
    """The harness has gone: every child still running is killed and waited for (a child
    nobody waits for takes its CPU time with it)."""
    for key in list(selector.get_map().values()):
        if key.data is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(key.data, signal.SIGKILL)  # it and whatever it started
            with contextlib.suppress(ProcessLookupError):
                os.kill(key.data, signal.SIGKILL)
            os.waitpid(key.data, 0)


def _start(control: socket.socket, selector: selectors.BaseSelector, program: Program) -> bool:
    """One start asked for on `control`; False when the harness has gone."""
    data, fds, _, _ = socket.recv_fds(control, MESSAGE_LIMIT, STDIO, socket.MSG_CMSG_CLOEXEC)
    if not data:
        return False
    request = json.loads(data)
    try:
        if len(fds) != STDIO:
            raise OSError(f"a start came with {len(fds)} descriptors, not {STDIO}")
        parent = os.getpid()
        set_up, setting_up = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(set_up)
            _child(request, fds, control, selector, program, parent, setting_up)
        os.close(setting_up)
        pidfd = os.pidfd_open(pid)
    except OSError as error:
        send(control, {"id": request["id"], "error": str(error)})
        return True
    finally:
        for fd in fds:
            os.close(fd)
    _await_set_up(set_up, pid)
    selector.register(pidfd, selectors.EVENT_READ, pid)
    send(control, {"id": request["id"], "pid": pid})
    return True


def _await_set_up(set_up: int, pid: int) -> None:
    """Until the child leads its own session, sealed (it closes its end of the pipe, or
    exits): the harness signals its process group as soon as it has the pid, as it does an
    exec'd child's once the exec is done. One that takes too long is killed."""
    try:
        if not select.select([set_up], [], [], SET_UP_TIMEOUT)[0]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    finally:
        os.close(set_up)


def _reap(control: socket.socket, selector: selectors.BaseSelector, pidfd: int, pid: int) -> None:
    selector.unregister(pidfd)
    os.close(pidfd)
    _, status = os.waitpid(pid, 0)
    send(control, {"exited": pid, "code": os.waitstatus_to_exitcode(status)})


def _child(
    request: dict[str, Any],
    fds: list[int],
    control: socket.socket,
    selector: selectors.BaseSelector,
    program: Program,
    parent: int,
    setting_up: int,
) -> None:
    """The forked copy: never returns. `setting_up` is closed once it is set up."""
    code = EXIT_CANNOT_RUN  # until the program runs
    try:
        os.setsid()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        # The server's own descriptors (the control socket, the other children's pidfds).
        for key in list(selector.get_map().values()):
            if key.data is not None:
                os.close(key.fd)
        selector.close()
        control.close()
        _become(request, parent)
        os.close(setting_up)
        code = 1  # as Python exits on an exception nobody caught
        code = _exit_code(program, request["argv"])
    except BaseException:  # whatever it was, the child must exit here
        with contextlib.suppress(BaseException):
            traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
        os._exit(code)


def _become(request: dict[str, Any], parent: int) -> None:
    """Where the child runs and what it sees, as the exec'd launch would have it."""
    if request["seal"] is None:
        os.chdir(request["cwd"])
        die_with(parent)
    else:
        seal_this_process(request["seal"], parent)
    os.environ.clear()
    os.environ.update(request["env"])
    time.tzset()  # the time zone of its TZ, not of the warm process's
    sys.argv = list(request["argv"])
    # What ps shows: the command line an exec'd launch would have had, not the warm copy's.
    setproctitle.setproctitle(shlex.join(sys.argv))


def _exit_code(program: Program, argv: Sequence[str]) -> int:
    try:
        returned = program(list(argv[1:]))
    except SystemExit as leaving:
        returned = leaving.code if isinstance(leaving.code, int) or leaving.code is None else 1
        if not isinstance(leaving.code, int | None):
            print(leaving.code, file=sys.stderr)
    return 0 if returned is None else returned
