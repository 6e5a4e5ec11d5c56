"""What a row gets: its own folder and TMPDIR, and the processes it starts, ended by it.

Every command a row runs starts in its own session (as a terminal job would be its own
process group), with stdout and stderr in files of the row's folder, and SIGINT at its
default action (a campaign started in the background inherits SIGINT ignored, and a
Ctrl-C row would then test nothing).
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tools.chaos import processes

# Restores SIGINT's default action, then execs the command (same pid).
_SIGINT_RESTORED = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execvp(sys.argv[1], sys.argv[1:])"
)
CODEX_PROBE = (sys.executable, "-m", "codex_probe.cli")
FAKE_CODEX = (sys.executable, "-m", "codex_probe.fake_appserver")


class RowDeadline(TimeoutError):
    """A wait of the row ran past its deadline."""


@dataclass
class Run:
    """One command a row started."""

    name: str
    process: subprocess.Popen[bytes]
    stdout_path: Path
    stderr_path: Path
    started: float

    @property
    def pid(self) -> int:
        return self.process.pid

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def send(self, signum: int) -> None:
        """`signum` to the command's process group, as a terminal sends Ctrl-C."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signum)

    def kill(self) -> None:
        """SIGKILL to the command alone: kill -9 PID."""
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()

    def wait(self, seconds: float) -> int:
        try:
            return self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            raise RowDeadline(f"{self.name} did not end within {seconds:.0f}s") from None

    @property
    def stdout(self) -> str:
        return self.stdout_path.read_text(errors="replace")

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def stderr_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]


@dataclass
class Context:
    """A row's folder, its environment, and every command it started."""

    folder: Path
    cache: Path
    rng: random.Random  # the campaign's, seeded: random moments can be replayed (--seed)
    runs: list[Run] = field(default_factory=list)

    @property
    def tmpdir(self) -> Path:
        path = self.folder / "tmp"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a command: the caller's, this row's TMPDIR and the cache."""
        env = dict(os.environ)
        env.update(TMPDIR=str(self.tmpdir), CODEX_PROBE_CACHE=str(self.cache))
        env.update(extra)
        return env

    def start(
        self,
        argv: Sequence[str],
        *,
        name: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> Run:
        label = name or f"run{len(self.runs) + 1}"
        stdout_path = self.folder / f"{label}.stdout"
        stderr_path = self.folder / f"{label}.stderr"
        with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
            process = subprocess.Popen(
                [sys.executable, "-c", _SIGINT_RESTORED, *argv],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=dict(env) if env is not None else self.env(),
                cwd=cwd or self.folder,
                start_new_session=True,
            )
        run = Run(label, process, stdout_path, stderr_path, time.monotonic())
        self.runs.append(run)
        return run

    def run(
        self,
        argv: Sequence[str],
        *,
        seconds: float,
        name: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> Run:
        """Start a command and wait for it, at most `seconds`."""
        run = self.start(argv, name=name, env=env, cwd=cwd)
        run.wait(seconds)
        return run

    def own(self) -> set[int]:
        """The pids this row waits for itself (not orphans to reap)."""
        return {run.pid for run in self.runs if run.process.returncode is None}

    def left_running(self, within: float) -> list[processes.Seen]:
        return processes.left_running_after(within, self.own())

    def homes_left(self) -> list[str]:
        """codex-probe's temporary folders left in this row's TMPDIR."""
        return sorted(p.name for p in self.tmpdir.glob("codex-probe-*"))

    def end(self) -> list[processes.Seen]:
        """End every command of the row and whatever they left: what had to be killed."""
        for run in self.runs:
            if run.process.poll() is None:
                run.send(signal.SIGKILL)
        killed = processes.kill_everything(self.own())
        for run in self.runs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                run.process.wait(timeout=5)
        return killed
