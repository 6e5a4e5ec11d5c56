"""No connection off loopback: every connect() of the run and of everything it starts
(strace -f), on the real codex-cli and the fake, goes to 127.0.0.1, ::1 or a local
socket."""

from __future__ import annotations

import re
import shutil

from tools.chaos import checks
from tools.chaos.context import CODEX_PROBE, Context
from tools.chaos.probe_runs import PROBE_S, VERSION
from tools.chaos.row import Observed, Row, observed

# Two scenarios' findings: codex starts, turns, restarts; strace makes every process slow.
FINDINGS = ("start-applies-instructions", "resume-refresh-cold")
INET = re.compile(r'sa_family=AF_INET, sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)')
INET6 = re.compile(r'sa_family=AF_INET6, sin6_port=htons\((\d+)\).*?inet_pton\(AF_INET6, "([^"]+)"')
LOOPBACK6 = ("::1", "::ffff:127.0.0.1")


def off_loopback(trace: str) -> tuple[list[str], int]:
    """The connect() targets off loopback in strace's output, and how many connects there were."""
    connects = [line for line in trace.splitlines() if "connect(" in line]
    outside = []
    for line in connects:
        if found := INET.search(line):
            port, address = found.groups()
            if not address.startswith("127."):
                outside.append(f"{address}:{port}")
        elif found := INET6.search(line):
            port, address = found.groups()
            if address not in LOOPBACK6:
                outside.append(f"[{address}]:{port}")
    return sorted(set(outside)), len(connects)


def loopback_only(ctx: Context) -> Observed:
    strace = shutil.which("strace")
    if strace is None:
        return Observed(False, "strace is not installed (apt-get install strace)")
    trace = ctx.folder / "connect.trace"
    only = [arg for finding in FINDINGS for arg in ("--only", finding)]
    probe = [*CODEX_PROBE, "probe", "--codex", VERSION, *only, "--out", str(ctx.folder / "out")]
    traced = [strace, "-f", "-qq", "-e", "trace=connect", "-o", str(trace), *probe]
    run = ctx.run(traced, seconds=PROBE_S)
    outside, connects = off_loopback(trace.read_text(errors="replace") if trace.exists() else "")
    problems = checks.exit_code(run, 0)
    if not connects:
        problems.append("strace saw no connect() at all")
    if outside:
        problems.append(f"connect() off loopback: {', '.join(outside[:5])}")
    problems += checks.left_nothing(ctx)
    return observed(problems, f"{connects} connect() calls, {len(outside)} off loopback")


ROWS = [
    Row(
        "no connect off loopback",
        "strace -f sees connect() only to 127.0.0.1, ::1 or local sockets; exit 0",
        loopback_only,
        deadline_s=PROBE_S + 60.0,
    )
]
