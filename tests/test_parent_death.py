"""Nothing codex-probe starts outlives it, even when it is killed outright (kill -9).

Each case runs a Python process that starts one kind of child the way codex-probe does
(npm, an app-server sealed or not, a one-shot codex tool, the browser, Allure, the gate's
probe run), each child a stand-in that runs until it is killed: it says its pid through a
FIFO and execs `sleep`. The test kills the starter with SIGKILL and waits, under a deadline,
for the child to be gone.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codex_probe.harness.codex.seal import namespace_support
from codex_probe.harness.parent_death import bound_to_this_process

REPO = Path(__file__).resolve().parents[1]
DEADLINE_S = 60.0
GONE_WITHIN_S = 5.0
POLL_S = 0.02

# What starts the child, given STAND_IN (the stand-in program's path) and BIN (its folder).
STARTERS = {
    "npm": (
        "import os; os.environ['PATH'] = BIN + ':' + os.environ['PATH']\n"
        "from codex_probe.harness.codex.npm import run_npm\n"
        "run_npm(['install', 'anything'], timeout=600)\n"
    ),
    "sealed app-server": (
        "import asyncio\n"
        "from codex_probe.harness.codex.appserver import open_app_server\n"
        "async def main():\n"
        "    await open_app_server(STAND_IN, env={}, cwd=None, initialize=False)\n"
        "    await asyncio.sleep(600)\n"
        "asyncio.run(main())\n"
    ),
    "sealed app-server on one CPU": (
        "import asyncio\n"
        "from codex_probe.harness.codex.appserver import open_app_server\n"
        "async def main():\n"
        "    await open_app_server(STAND_IN, env={}, cwd=None, initialize=False, one_cpu=True)\n"
        "    await asyncio.sleep(600)\n"
        "asyncio.run(main())\n"
    ),
    "unsealed app-server": (
        "import asyncio\n"
        "from codex_probe.harness.codex import seal\n"
        "seal._support = seal.Support(False, 'this test says so')\n"
        "from codex_probe.harness.codex.appserver import open_app_server\n"
        "async def main():\n"
        "    await open_app_server(STAND_IN, env={}, cwd=None, initialize=False)\n"
        "    await asyncio.sleep(600)\n"
        "asyncio.run(main())\n"
    ),
    "fake forked from its warm copy": (
        "import asyncio, os\n"
        "from pathlib import Path\n"
        "from codex_probe.fake_appserver.launcher import import_roots\n"
        "from codex_probe.harness.forks.client import ForkServer\n"
        "from codex_probe.harness.jsonrpc.process import ServerProcess\n"
        "roots = [os.environ['PYTHONPATH'], *import_roots()]\n"
        "forks = ForkServer('tests.fork_programs:main', [], roots)\n"
        "fifo = os.path.join(os.path.dirname(BIN), 'started')\n"
        "async def main():\n"
        "    await ServerProcess.start_forked(\n"
        "        forks, ['p', 'stand-in', fifo], env={}, cwd=Path(BIN), seal=None\n"
        "    )\n"
        "    await asyncio.sleep(600)\n"
        "asyncio.run(main())\n"
    ),
    "codex tool": (
        "from pathlib import Path\n"
        "from codex_probe.harness.codex.install import run_codex_tool\n"
        "run_codex_tool(Path(STAND_IN), ['--version'], timeout=600)\n"
    ),
    "browser": (
        "from codex_probe.reporting import browser\n"
        "browser.find_browser = lambda: STAND_IN\n"
        "browser._run_headless(['--dump-dom', 'about:blank'], timeout=600)\n"
    ),
    "allure": (
        "from pathlib import Path\n"
        "from codex_probe.harness.codex.install import Installation\n"
        "from codex_probe.reporting.allure_install import BINARY_RELATIVE\n"
        "from codex_probe.reporting.allure_report import _run_allure\n"
        "allure = Installation('3.18.0', Path(BIN) / 'allure-root', BINARY_RELATIVE)\n"
        "_run_allure(allure, ['generate'], cwd=Path(BIN), timeout=600)\n"
    ),
    "gate's probe run": (
        "from codex_probe.reporting.probe_run import run_probes\n"
        "run_probes([STAND_IN, 'probe'], timeout=600)\n"
    ),
}


def alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie waiting for init to reap it does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def gone_within(pid: int, seconds: float) -> bool:
    ends = time.monotonic() + seconds
    while alive(pid):
        if time.monotonic() >= ends:
            return False
        time.sleep(POLL_S)  # /proc has no event for another process's death
    return True


def pid_from(fifo: Path, starter: subprocess.Popen[bytes]) -> int:
    """The pid the stand-in writes into `fifo`, within the deadline."""
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        said = b""
        ends = time.monotonic() + DEADLINE_S
        while not said.endswith(b"\n"):
            left = ends - time.monotonic()
            if left <= 0 or starter.poll() is not None:
                raise AssertionError(f"the child never started (starter: {starter.returncode})")
            if select.select([fd], [], [], min(left, 1.0))[0]:
                said += os.read(fd, 64)
        return int(said)
    finally:
        os.close(fd)


@pytest.fixture
def stand_in(tmp_path: Path) -> tuple[Path, Path]:
    """A program that writes its pid into a FIFO and then runs until killed; the FIFO."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fifo = tmp_path / "started"
    os.mkfifo(fifo)
    program = bin_dir / "stand-in"
    program.write_text(f"#!/bin/sh\necho $$ > {fifo}\nexec sleep 600\n")
    program.chmod(0o755)
    for name in ("npm", "allure-root/node_modules/.bin/allure"):
        (bin_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (bin_dir / name).symlink_to(program)
    return program, fifo


@pytest.mark.parametrize("kind", list(STARTERS))
def test_a_child_is_gone_within_seconds_of_its_starter_being_killed_outright(
    kind: str, stand_in: tuple[Path, Path]
) -> None:
    if kind == "sealed app-server" and not namespace_support().available:
        pytest.skip("this host cannot seal")
    program, fifo = stand_in
    prologue = f"STAND_IN = {str(program)!r}\nBIN = {str(program.parent)!r}\n"
    starter = subprocess.Popen(
        [sys.executable, "-c", prologue + STARTERS[kind]],
        cwd=program.parent,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    child = None
    try:
        child = pid_from(fifo, starter)
        starter.send_signal(signal.SIGKILL)
        starter.wait(timeout=DEADLINE_S)
        assert gone_within(child, GONE_WITHIN_S), f"{kind} {child} outlived its starter"
    finally:
        starter.kill()
        starter.wait(timeout=DEADLINE_S)
        if child is not None and alive(child):
            os.kill(child, signal.SIGKILL)


def test_a_child_whose_starter_is_gone_before_it_could_bind_to_it_ends_at_once() -> None:
    # The helper is told of a parent that is not its own: as if that one had died already.
    argv = bound_to_this_process(["sleep", "600"])
    argv[argv.index(str(os.getpid()))] = str(os.getpid() + 1_000_000)
    done = subprocess.run(argv, timeout=DEADLINE_S, check=False)
    assert done.returncode == -signal.SIGKILL
