"""The probe suite's wall time for one codex-cli version, beside its floor.

Run: python bench/probes.py [--codex 0.171.0] [--runs 3] [--no-fidelity]

suite: `codex-probe probe --codex V --out TMP` as a subprocess, timed end to end. floor: the process
starts, thread/starts, turns, compactions and resumes the suite's scenarios make, replayed in the
same order by a bare asyncio loop of newline JSON over the app-server's stdio (no harness client, no
pytest, no observation), each scenario against its own Wiretap and IsolatedHome as in the suite, on
the same backends (real, and the fake too unless --no-fidelity). The steps are read off
codex_probe/probes/runner/scenarios.py by a recorder standing in for ScenarioRun. The gap is what
the harness costs, plus the scenarios' scripted waits and extra requests, which the floor leaves out
(printed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codex_probe.harness.codex.appserver import app_server_argv  # noqa: E402
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION  # noqa: E402
from codex_probe.probes.domain.assumptions import ASSUMPTIONS  # noqa: E402
from codex_probe.probes.runner.dry_run import Step, dry_run  # noqa: E402
from codex_probe.probes.runner.scenarios import SCENARIO_HOMES, SCENARIOS  # noqa: E402
from codex_probe.rig.backends import make_backend  # noqa: E402
from codex_probe.rig.homes import IsolatedHome  # noqa: E402
from codex_probe.rig.wiretap import Wiretap  # noqa: E402

STEP_TIMEOUT = 60.0
EXIT_GRACE = 2.0
SUITE_TIMEOUT = 1800.0
REPLAYED = ("restart", "start", "turn", "compact", "resume", "fork")


# ----- what the scenarios do -------------------------------------------------------


def suite_runs(fidelity: bool) -> list[tuple[str, str]]:
    """(backend, scenario) pairs the suite runs, as a probe run chooses them."""
    if fidelity:
        return [(kind, name) for kind in ("real", "fake") for name in SCENARIOS]
    return [("real", name) for name in dict.fromkeys(a.scenario for a in ASSUMPTIONS)]


# ----- the floor: a bare newline-JSON loop ------------------------------------------


class BareServer:
    """One app-server process spoken to with nothing but json and asyncio streams."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.ids = 0
        self.completed_turns = 0

    @classmethod
    async def spawn(cls, binary: Path, home: IsolatedHome) -> BareServer:
        process = await asyncio.create_subprocess_exec(
            *app_server_argv(binary),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=home.env(),
            cwd=home.workdir,
            start_new_session=True,
            limit=64 * 1024 * 1024,  # a resume answer carries the whole thread
        )
        server = cls(process)
        try:
            await server.request("initialize", {"clientInfo": {"name": "bench", "version": "0"}})
            await server.send({"method": "initialized"})
        except BaseException:
            await server.close()
            raise
        return server

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()

    async def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = await self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"app-server closed stdout (exit {self.process.returncode})")
        message: dict[str, Any] = json.loads(line)
        if message.get("method") == "turn/completed":
            self.completed_turns += 1
        elif "method" in message and "id" in message:  # a server request: decline it
            await self.send({"id": message["id"], "error": {"code": -32601, "message": "no"}})
        return message

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        self.ids += 1
        request_id = self.ids
        await self.send({"id": request_id, "method": method, "params": params})
        async with asyncio.timeout(STEP_TIMEOUT):
            while True:
                message = await self.receive()
                if message.get("id") == request_id and "method" not in message:
                    if "error" in message:
                        raise RuntimeError(f"{method} failed: {message['error']}")
                    return message["result"]

    async def until_turn_completed(self, before: int) -> None:
        async with asyncio.timeout(STEP_TIMEOUT):
            while self.completed_turns <= before:
                await self.receive()

    async def close(self) -> None:
        """Close stdin, wait, then SIGTERM and SIGKILL the group (as the harness does)."""
        assert self.process.stdin is not None
        with contextlib.suppress(OSError, RuntimeError):
            self.process.stdin.close()
        for signum in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(EXIT_GRACE):
                    await self.process.wait()
                break
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signum)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)  # helpers must not outlive it
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(EXIT_GRACE):
                await self.process.wait()


async def replay(binary: Path, steps: list[Step], home_options: Mapping[str, Any]) -> None:
    """One scenario's steps, in a fresh home against a fresh wiretap, as the suite runs it."""
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url, **home_options) as home:
            server: BareServer | None = None
            threads: dict[str, str] = {}  # scenario label -> thread id
            try:
                for step in steps:
                    if step.kind == "restart":
                        if server is not None:
                            await server.close()
                        server = await BareServer.spawn(binary, home)
                    elif server is not None:
                        await replay_step(server, step, threads, home, tap)
            finally:
                if server is not None:
                    await server.close()


async def replay_step(
    server: BareServer, step: Step, threads: dict[str, str], home: IsolatedHome, tap: Wiretap
) -> None:
    if step.kind == "start":
        started = await server.request("thread/start", {"cwd": str(home.workdir), **step.params})
        threads[step.thread] = started["thread"]["id"]
    elif step.kind == "resume":
        await server.request("thread/resume", {"threadId": threads[step.thread], **step.params})
    elif step.kind == "fork":
        params = {"threadId": threads[step.thread], **step.params["fields"]}
        forked = await server.request("thread/fork", params)
        threads[step.params["new"]] = forked["thread"]["id"]
    elif step.kind == "turn":
        before = server.completed_turns
        tap.queue_replies(*step.params.get("replies", ()))
        text = [{"type": "text", "text": step.params["text"], "text_elements": []}]
        params = {"threadId": threads[step.thread], "input": text}
        await server.request("turn/start", {**params, **step.params.get("settings", {})})
        await server.until_turn_completed(before)
    elif step.kind == "compact":
        before = server.completed_turns
        await server.request("thread/compact/start", {"threadId": threads[step.thread]})
        await server.until_turn_completed(before)


async def floor(
    binaries: dict[str, Path], plan: list[tuple[str, str, list[Step]]]
) -> dict[str, float]:
    """Seconds the bare replay of `plan` took, per backend kind."""
    spent: dict[str, float] = dict.fromkeys(binaries, 0.0)
    for kind, name, steps in plan:
        started = time.monotonic()
        await replay(binaries[kind], steps, SCENARIO_HOMES.get(name, {}))
        spent[kind] += time.monotonic() - started
    return spent


# ----- the suite ---------------------------------------------------------------------


def suite(version: str, fidelity: bool) -> tuple[float, int]:
    with tempfile.TemporaryDirectory(prefix="bench-probes-") as out:
        command = [
            sys.executable,
            "-m",
            "codex_probe.cli",
            "probe",
            "--codex",
            version,
            "--out",
            out,
        ]
        if not fidelity:
            command.append("--no-fidelity")
        started = time.monotonic()
        suite_process = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            status = suite_process.wait(timeout=SUITE_TIMEOUT)
        except subprocess.TimeoutExpired:
            # SIGINT cancels the probe run, which ends the codex processes it started.
            suite_process.send_signal(signal.SIGINT)
            try:
                suite_process.wait(timeout=30)
            finally:
                suite_process.kill()
                suite_process.wait()
            raise
        return time.monotonic() - started, status


def summary(values: list[float]) -> str:
    return (
        f"median {statistics.median(values):6.2f} s (min {min(values):6.2f}, "
        f"max {max(values):6.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--codex", default=DEFAULT_CODEX_VERSION, metavar="VERSION")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-fidelity", action="store_true", help="the suite without the fake")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    say = (lambda *_: None) if args.json else print
    fidelity = not args.no_fidelity
    runs = suite_runs(fidelity)
    kinds = dict.fromkeys(kind for kind, _ in runs)
    binaries = {kind: make_backend(kind, args.codex).binary for kind in kinds}  # installs first
    recorders = {name: dry_run(name) for name in dict.fromkeys(name for _, name in runs)}
    plan = [(kind, name, recorders[name].steps) for kind, name in runs]
    counts = Counter(step.kind for _, _, steps in plan for step in steps)
    scripted_wait = sum(recorders[name].scripted_wait for _, name in runs)
    say(
        f"machine: {platform.node()} {platform.machine()} {os.cpu_count()} cpus, "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}; "
        f"codex-cli {args.codex}; {args.runs} runs each"
    )
    say(
        f"work: {len(runs)} scenario runs on {'+'.join(kinds)}: {counts['restart']} process "
        f"starts, {counts['start']} thread/starts, {counts['turn']} turns, "
        f"{counts['compact']} compactions, {counts['resume']} resumes"
    )
    left_out = {kind: n for kind, n in counts.items() if kind not in REPLAYED}
    say(
        f"not in the floor: requests {dict(sorted(left_out.items()))}, scripted waits "
        f"up to {scripted_wait:.1f} s (held-back replies, unsubscribe settles)"
    )
    suite_times: list[float] = []
    floor_times: list[dict[str, float]] = []
    statuses: list[int] = []
    for _ in range(args.runs):
        elapsed, status = suite(args.codex, fidelity)
        if status != 0:
            say(f"suite exit status {status} (3: some finding is broken)")
        statuses.append(status)
        suite_times.append(elapsed)
        floor_times.append(asyncio.run(floor(binaries, plan)))
    totals = [sum(spent.values()) for spent in floor_times]
    command = f"codex-probe probe --codex {args.codex}{'' if fidelity else ' --no-fidelity'}"
    say(f"{'suite: ' + command:54s} {summary(suite_times)}")
    say(f"{'floor: bare replay of the same work':54s} {summary(totals)}")
    for kind in kinds:
        times = [spent[kind] for spent in floor_times]
        say(f"{'  of which on ' + kind:54s} {summary(times)}")
    ratio = statistics.median(suite_times) / statistics.median(totals)
    say(f"suite / floor: {ratio:.2f}x")
    if args.json:
        print(
            json.dumps(
                {
                    "codex": args.codex,
                    "fidelity": fidelity,
                    "runs": args.runs,
                    "cpus": os.cpu_count(),
                    "suite_s": statistics.median(suite_times),
                    "floor_s": statistics.median(totals),
                    "floor_by_backend_s": {
                        kind: statistics.median(spent[kind] for spent in floor_times)
                        for kind in kinds
                    },
                    "suite_exit_statuses": statuses,
                    "scripted_wait_s": scripted_wait,
                    "suite_over_floor": ratio,
                }
            )
        )


if __name__ == "__main__":
    main()
