"""Each real app-server on one CPU of its own choosing, the CPUs taken in turn.

codex runs a multi-threaded runtime whose threads hand each other nearly every message
(its SQLite worker included); spread over two CPUs of a shared VM, those hand-offs are
wake-ups across CPUs, which cost more than the work they carry. Measured on 0.171.0's
exploration (2 cores, load 1 to 3, 3 pairs): 23.1 to 28.5 CPU-seconds of codex unpinned,
17.0 to 19.7 with each app-server pinned, and less wall time too (20.7 to 21.7 s against
22.7 to 27.2 s). What codex answers does not change: the surfaces of two pinned probes of
0.150.0 and of four unpinned ones are identical.

Pinned, a process is no longer moved by the kernel to an idle CPU, so the app-servers are
placed in turn over the CPUs this process may use. The pin is `taskset` (util-linux)
before the command line: an exec of a small program, which the wrappers after it (the
seal, the parent-death helper) and codex inherit. Without taskset, or with one CPU,
nothing changes.
"""

from __future__ import annotations

import itertools
import os
import shutil
import threading
from collections.abc import Iterator

TASKSET = "taskset"

_turns: Iterator[int] | None = None
_lock = threading.Lock()


def allowed_cpus() -> list[int]:
    """The CPUs this process may run on (none where the platform cannot tell)."""
    if not hasattr(os, "sched_getaffinity"):
        return []
    return sorted(os.sched_getaffinity(0))


def next_cpu() -> int | None:
    """The next CPU in turn (None with fewer than two to choose from)."""
    global _turns
    cpus = allowed_cpus()
    if len(cpus) < 2:
        return None
    with _lock:  # app-servers are started from more than one thread's event loop
        if _turns is None:
            _turns = itertools.cycle(cpus)
        cpu = next(_turns)
    return cpu if cpu in cpus else cpus[0]


def on_one_cpu(argv: list[str], taskset: str | None = None) -> list[str]:
    """`argv` run on the next CPU in turn (`argv` itself where it cannot be pinned)."""
    taskset = taskset or shutil.which(TASKSET)
    cpu = next_cpu()
    if taskset is None or cpu is None:
        return list(argv)
    return [taskset, "--cpu-list", str(cpu), *argv]
