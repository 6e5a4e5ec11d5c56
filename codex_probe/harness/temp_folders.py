"""Temporary folders that go when their process goes, even when it is killed outright.

A codex-probe process makes a home per scenario (`codex-probe-*` in its scratch folder,
harness/scratch.py: TMPDIR, or /dev/shm where it fits) and removes it
when the scenario ends; kill -9 runs no cleanup, and a run killed mid-way left six homes
behind. So every such folder is also told to a *janitor*: a small process of its own
(this file run as a script, `python -I -S temp_folders.py`), started on the first folder,
in its own session (a Ctrl-C at the terminal does not reach it), that reads one line per
folder made or removed from a pipe. The pipe's far end is held by its codex-probe process
alone, so it ends when that process ends, however it ends; the janitor then removes every
folder still listed and exits, within milliseconds. A folder removed normally is taken
off the list first, so the janitor never removes what its process still uses.

A janitor that died (killed by hand) is started again on the next folder made or removed,
or at the process's normal exit, and told every folder still listed. Only folders named
`codex-probe-*` are ever removed by it.

An app-server may outlive its codex-probe for a moment: the parent-death signal reaches
the npm launcher, not the native codex below it, which ends when its stdin does and saves
its session first, re-creating its home's folders if they were removed meanwhile (a
SIGHUP mid-run left one home so). So the janitor first gives the app-servers working in
a listed folder (found by /proc/PID/cwd) GRACE_S to end, then kills those left, then
removes the folder, again for up to REMOVING_S while anything reappears.

The helper part comes first and needs only contextlib, json, os, shutil, signal, sys and
time.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
import time
from collections.abc import Iterable

PREFIX = "codex-probe-"
GRACE_S = 2.0
REMOVING_S = 5.0
LOOK_AGAIN_S = 0.05


def _app_servers_in(folders: set[str]) -> list[int]:
    """The app-servers (codex, the fake) whose working folder is inside one of `folders`."""
    found = []
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []  # no /proc: nothing to wait for
    for pid in pids:
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                is_app_server = b"app-server" in cmdline.read()
        except OSError:
            continue  # gone, or not ours to read
        inside = any(cwd == folder or cwd.startswith(folder + os.sep) for folder in folders)
        if is_app_server and inside:
            found.append(pid)
    return found


def _remove(listed: set[str]) -> None:
    """Remove the folders once no app-server works in them any more (after GRACE_S, those
    still there are killed), and again while anything reappears, up to REMOVING_S."""
    started = time.monotonic()
    while listed:
        elapsed = time.monotonic() - started
        if users := _app_servers_in(listed):
            if elapsed < GRACE_S:
                time.sleep(LOOK_AGAIN_S)  # /proc gives no event for a process's end
                continue
            for pid in users:
                with contextlib.suppress(OSError):  # gone meanwhile
                    os.kill(pid, signal.SIGKILL)
        for path in sorted(listed):
            shutil.rmtree(path, ignore_errors=True)
        listed = {path for path in listed if os.path.lexists(path)}
        if not listed or elapsed >= REMOVING_S:
            return
        time.sleep(LOOK_AGAIN_S)


def _janitor(lines: Iterable[str]) -> None:
    """Keep the folders the lines list (`+ path`, `- path`); at the end, remove them."""
    listed: set[str] = set()
    for line in lines:
        sign, _, encoded = line.partition(" ")
        try:
            path = json.loads(encoded)
        except ValueError:
            continue
        if not isinstance(path, str) or not os.path.isabs(path):
            continue
        if sign == "+" and os.path.basename(path).startswith(PREFIX):
            listed.add(path)
        elif sign == "-":
            listed.discard(path)
    _remove(listed)


if __name__ == "__main__":  # the janitor; the parent side below would slow its start
    _janitor(sys.stdin)
    sys.exit(0)


import atexit  # noqa: E402 (after the janitor, which must start fast)
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

from codex_probe.harness.scratch import scratch_root  # noqa: E402

JANITOR_EXIT_S = REMOVING_S + 1.0


class _Registry:
    """This process's janitor and the folders it was told of."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listed: set[str] = set()
        self._janitor: subprocess.Popen[str] | None = None
        self._owner = 0  # the pid that started the janitor: a forked child needs its own

    def start(self) -> None:
        """Have the janitor running, so that listing a folder is one write to its pipe."""
        with self._lock:
            self._running()

    def add(self, folder: Path) -> None:
        with self._lock:
            self._listed.add(str(folder))
            self._tell(f"+ {json.dumps(str(folder))}\n")

    def discard(self, folder: Path) -> None:
        with self._lock:
            if str(folder) in self._listed:
                self._listed.discard(str(folder))
                self._tell(f"- {json.dumps(str(folder))}\n")

    def _tell(self, line: str) -> None:
        for _ in range(2):  # a janitor found dead is started again once, told everything
            janitor = self._running()
            if janitor is None or janitor.stdin is None:
                return  # no janitor here: the folder is still removed the ordinary way
            try:
                janitor.stdin.write(line)
                janitor.stdin.flush()
                return
            except OSError:
                self._janitor = None
                with contextlib.suppress(OSError):
                    janitor.stdin.close()
                janitor.poll()  # reaped, if it is gone

    def forked(self) -> None:
        """In a forked child: the parent's folders and janitor are the parent's."""
        self._lock = threading.Lock()
        self._listed = set()
        self._janitor = None

    def close(self) -> None:
        """At a normal exit: the janitor removes what is still listed, and ends. One that
        died since it was last told something (killed by hand) is started again first and
        told every folder still listed: no folder made after the kill would start it."""
        with self._lock:
            if self._listed and self._owner == os.getpid():
                self._running()
            janitor, self._janitor = self._janitor, None
        if janitor is None or self._owner != os.getpid():
            return
        with contextlib.suppress(OSError):
            if janitor.stdin is not None:
                janitor.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            janitor.wait(timeout=JANITOR_EXIT_S)

    def _running(self) -> subprocess.Popen[str] | None:
        janitor = self._janitor
        if janitor is not None and self._owner == os.getpid():
            if janitor.poll() is None:
                return janitor
            with contextlib.suppress(OSError):  # it died (killed by hand): its pipe goes too
                if janitor.stdin is not None:
                    janitor.stdin.close()
        try:
            janitor = subprocess.Popen(
                [sys.executable, "-I", "-S", os.path.abspath(__file__)],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                text=True,
                env={},
                start_new_session=True,
            )
        except OSError:
            return None
        self._janitor, self._owner = janitor, os.getpid()
        assert janitor.stdin is not None
        with contextlib.suppress(OSError):
            janitor.stdin.writelines(f"+ {json.dumps(path)}\n" for path in sorted(self._listed))
            janitor.stdin.flush()
        return janitor


_registry = _Registry()
os.register_at_fork(after_in_child=_registry.forked)
atexit.register(_registry.close)


def make_folder(name: str = "", parent: Path | None = None) -> Path:
    """A new folder `codex-probe-[NAME-]*` (in `scratch_root()`, or `parent`), removed when this
    process ends, whatever ends it, unless `removed()` is called first.

    The janitor is started before the folder is made: a signal that kills this process
    between the two leaves nothing unlisted but for the moment of one write."""
    _registry.start()
    prefix = f"{PREFIX}{name}-" if name else PREFIX
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=parent or scratch_root())).resolve()
    _registry.add(folder)
    return folder


def removed(folder: Path) -> None:
    """`folder` was removed (or is kept on purpose): the janitor forgets it."""
    _registry.discard(folder)


@contextlib.contextmanager
def temporary_folder(name: str, parent: Path | None = None) -> Iterator[Path]:
    """A new folder `codex-probe-NAME-*` (in `scratch_root()`), removed at the end of the block, or
    by the janitor if this process is killed inside it."""
    folder = make_folder(name, parent)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        removed(folder)
