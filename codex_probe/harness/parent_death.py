"""Children that die with codex-probe, even when it is killed outright.

kill -9 of codex-probe runs none of its cleanup (finally blocks, atexit, the ends of
process groups): a child it started would run on, npm filling a 426 MB folder, a codex,
a browser. So every child starts through this file, run as a script (`python -I -S
parent_death.py PID -- ARGV`): it asks the kernel for SIGKILL when its parent goes
(prctl PR_SET_PDEATHSIG), checks that the parent, PID, has not gone already (the signal
would then never come), and execs ARGV: same pid, same environment, one Python start-up
(about 11 ms) more. Sealed app-servers get the same from the seal's own helper
(`seal.py --parent PID`), which runs in the child anyway.

Not `preexec_fn`: Python code in a forked copy of a threaded parent may deadlock, and it
makes every start a full fork of a large process (6 ms of CPU at 300 MB, measured).

The kernel sends the signal when the *thread* that started the child ends, not the whole
process. codex-probe starts each child from a thread that waits for it (subprocess.run,
communicate, the event loop that owns an app-server), so a child never outlives its
thread in normal operation; a thread that started a child and returned without it would
take the child with it.

The helper part comes first and needs only ctypes, os, signal and sys.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PYTHON_FLAGS = ("-I", "-S")
PR_SET_PDEATHSIG = 1
EXIT_CANNOT_RUN = 127  # as a shell says of a command it cannot run
USAGE = "usage: parent_death.py PARENT_PID -- ARGV..."


def die_with(parent: int) -> None:
    """Have the kernel SIGKILL this process when `parent` (the thread that started it)
    ends; if it has ended already, die now. Call it after any change of credentials (a
    new user namespace clears the setting) and right before exec (which keeps it)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"prctl(PR_SET_PDEATHSIG): {os.strerror(code)}")
    if os.getppid() != parent:  # it went before the setting: no signal will come
        os.kill(os.getpid(), signal.SIGKILL)


def _helper_main(args: list[str]) -> int:
    if len(args) < 3 or args[1] != "--" or not args[0].isdigit():
        print(f"codex-probe parent_death: {USAGE}", file=sys.stderr)
        return 2
    try:
        die_with(int(args[0]))
        os.execvp(args[2], args[2:])
    except OSError as error:
        print(f"codex-probe parent_death: {args[2]}: {error}", file=sys.stderr)
    return EXIT_CANNOT_RUN


if __name__ == "__main__":  # the helper; the parent side below needs nothing more
    sys.exit(_helper_main(sys.argv[1:]))


def bound_to_this_process(argv: list[str]) -> list[str]:
    """The command line that runs `argv` as a child that dies with the caller's thread
    (`argv` itself where the kernel has no parent-death signal: not Linux)."""
    if not sys.platform.startswith("linux"):
        return list(argv)
    helper = os.path.abspath(__file__)
    return [sys.executable, *PYTHON_FLAGS, helper, str(os.getpid()), "--", *argv]
