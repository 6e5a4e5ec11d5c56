"""The probe suite's wall time for one codex-cli version, beside its floor.

Run: python bench/probes.py [--codex 0.171.0] [--runs 3] [--no-fidelity] [--floor-only] [--json]

suite: `codex-probe probe --codex V --out TMP` as a subprocess, timed end to end. floor: the process
starts, thread/starts, turns, compactions and resumes the suite's scenarios make, replayed in the
same order by a bare asyncio loop of newline JSON over the app-server's stdio (no harness client, no
pytest, no observation), each scenario against its own Wiretap and IsolatedHome as in the suite, on
the same backends (real, and the fake too unless --no-fidelity). The steps are read off
codex_probe/probes/runner/scenarios.py by a recorder standing in for ScenarioRun. The gap is what
the harness costs, plus the scenarios' scripted waits and extra requests, which the floor leaves out
(printed).

The suite explores the release too (codex_probe/probes/explore/), beside its scenarios; the floor
replays the exploration's requests, lane by lane, as one exploration through the harness sent them
(its fences left out, ids and folders mapped to the replay's own, a turn waited for as the original
waited for it), in a bare loop against a wiretap that holds nothing back and an app-server that
declines every approval.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codex_probe.harness.codex.appserver import app_server_argv  # noqa: E402
from codex_probe.harness.codex.one_cpu import on_one_cpu  # noqa: E402
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION  # noqa: E402
from codex_probe.harness.jsonrpc.transcript import TranscriptEntry  # noqa: E402
from codex_probe.probes.domain.assumptions import ASSUMPTIONS  # noqa: E402
from codex_probe.probes.explore.home import ExploreHome  # noqa: E402
from codex_probe.probes.explore.lane import FENCE_METHOD  # noqa: E402
from codex_probe.probes.explore.outbound import Outbound  # noqa: E402
from codex_probe.probes.explore.run import explore  # noqa: E402
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
    async def spawn(cls, binary: Path, home: IsolatedHome, *, one_cpu: bool) -> BareServer:
        # On one CPU where the suite runs it on one too (the real codex): the same codex.
        argv = app_server_argv(binary)
        process = await asyncio.create_subprocess_exec(
            *(on_one_cpu(argv) if one_cpu else argv),
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

    async def call(self, method: str, params: Any) -> dict[str, Any]:
        """The answer to a request, result or error."""
        self.ids += 1
        request_id = self.ids
        message: dict[str, Any] = {"id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)
        async with asyncio.timeout(STEP_TIMEOUT):
            while True:
                answer = await self.receive()
                if answer.get("id") == request_id and "method" not in answer:
                    return answer

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


async def replay(
    binary: Path, steps: list[Step], home_options: Mapping[str, Any], *, one_cpu: bool
) -> None:
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
                        server = await BareServer.spawn(binary, home, one_cpu=one_cpu)
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
        home_options = SCENARIO_HOMES.get(name, {})
        await replay(binaries[kind], steps, home_options, one_cpu=kind == "real")
        spent[kind] += time.monotonic() - started
    return spent


# ----- the exploration's floor ---------------------------------------------------------

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# A turn the original waited for is waited for this long at most in the replay (which holds
# nothing back, so a turn the original let go may end sooner, or not come at all).
REPLAY_TURN_WAIT = 10.0


@dataclass
class Sent:
    """A request an exploration lane sent, what came back, and the turns it waited for."""

    method: str
    params: Any
    answer: Any
    completions: int = 0


def lane_requests(entries: list[TranscriptEntry]) -> tuple[str, list[Sent]]:
    """The home folder a lane ran in (from its first initialize answer) and its requests."""
    sent: list[Sent] = []
    by_id: dict[Any, Sent] = {}
    root = ""
    for entry in entries:
        message = entry.message
        if not isinstance(message, dict):
            continue
        if entry.direction == "send" and "method" in message and "id" in message:
            by_id = by_id if message["method"] != "initialize" else {}
            request = Sent(message["method"], message.get("params"), None)
            sent.append(request)
            by_id[message["id"]] = request
        elif entry.direction == "recv" and "method" not in message and "id" in message:
            answered = by_id.get(message["id"])
            if answered is not None:
                answered.answer = message.get("result", message.get("error"))
                home = (message.get("result") or {}) if answered.method == "initialize" else {}
                if not root and isinstance(home, dict) and "codexHome" in home:
                    root = str(Path(home["codexHome"]).parents[1])
        elif entry.direction == "recv" and message.get("method") == "turn/completed" and sent:
            sent[-1].completions += 1
    return root, sent


def explored(version: str) -> list[list[TranscriptEntry]]:
    """Each lane's transcript of one exploration of `version` through the harness."""
    lanes: list[list[TranscriptEntry]] = []
    backend = make_backend("real", version)
    asyncio.run(explore(backend, on_lane=lambda transcript: lanes.append(transcript.entries)))
    return lanes


def remapped(value: Any, ids: dict[str, str], root: str, new_root: str) -> Any:
    if isinstance(value, str):
        value = value.replace(root, new_root) if root else value
        return UUID.sub(lambda found: ids.get(found.group(0), found.group(0)), value)
    if isinstance(value, list):
        return [remapped(item, ids, root, new_root) for item in value]
    if isinstance(value, dict):
        return {key: remapped(item, ids, root, new_root) for key, item in value.items()}
    return value


async def replay_lane(binary: Path, entries: list[TranscriptEntry]) -> None:
    """One exploration lane's requests, bare (see the module)."""
    root, requests = lane_requests(entries)
    async with Outbound() as outbound, Wiretap() as tap:
        with ExploreHome(tap.base_url, outbound.env()) as home:
            server: BareServer | None = None
            ids: dict[str, str] = {}
            try:
                for request in requests:
                    if request.method == "initialize":
                        if server is not None:
                            await server.close()
                        server = await BareServer.spawn(binary, home, one_cpu=True)
                        continue
                    if request.method == FENCE_METHOD or server is None:
                        continue
                    before = server.completed_turns
                    params = remapped(request.params, ids, root, str(home.root))
                    answer = await server.call(request.method, params)
                    old = UUID.findall(json.dumps(request.answer))
                    new = UUID.findall(json.dumps(answer.get("result", answer.get("error"))))
                    ids.update((a, b) for a, b in zip(old, new, strict=False) if a not in ids)
                    if request.completions:
                        with contextlib.suppress(TimeoutError):
                            async with asyncio.timeout(REPLAY_TURN_WAIT):
                                while server.completed_turns < before + request.completions:
                                    await server.receive()
            finally:
                if server is not None:
                    await server.close()


async def exploration_floor(binary: Path, lanes: list[list[TranscriptEntry]]) -> float:
    """Seconds the bare replay of every lane took, one lane after another."""
    started = time.monotonic()
    for entries in lanes:
        await replay_lane(binary, entries)
    return time.monotonic() - started


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
    parser.add_argument(
        "--floor-only",
        action="store_true",
        help="the floor alone, no suite: how fast the machine runs codex (bench/history.py)",
    )
    args = parser.parse_args()
    say = (lambda *_: None) if args.json else print
    fidelity = not args.no_fidelity
    runs = suite_runs(fidelity)
    kinds = dict.fromkeys(kind for kind, _ in runs)
    binaries = {kind: make_backend(kind, args.codex).binary for kind in kinds}  # installs first
    recorders = {name: dry_run(name) for name in dict.fromkeys(name for _, name in runs)}
    lanes = explored(args.codex)  # once: what the suite's exploration sends
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
        if not args.floor_only:
            elapsed, status = suite(args.codex, fidelity)
            if status != 0:
                say(f"suite exit status {status} (3: some finding is broken)")
            statuses.append(status)
            suite_times.append(elapsed)
        spent = asyncio.run(floor(binaries, plan))
        spent["exploration"] = asyncio.run(exploration_floor(binaries["real"], lanes))
        floor_times.append(spent)
    totals = [sum(spent.values()) for spent in floor_times]
    command = f"codex-probe probe --codex {args.codex}{'' if fidelity else ' --no-fidelity'}"
    if suite_times:
        say(f"{'suite: ' + command:54s} {summary(suite_times)}")
    say(f"{'floor: bare replay of the same work':54s} {summary(totals)}")
    for kind in (*kinds, "exploration"):
        times = [spent[kind] for spent in floor_times]
        say(f"{'  of which on ' + kind:54s} {summary(times)}")
    ratio = statistics.median(suite_times) / statistics.median(totals) if suite_times else None
    if ratio is not None:
        say(f"suite / floor: {ratio:.2f}x")
    if args.json:
        print(
            json.dumps(
                {
                    "codex": args.codex,
                    "fidelity": fidelity,
                    "runs": args.runs,
                    "cpus": os.cpu_count(),
                    "suite_s": statistics.median(suite_times) if suite_times else None,
                    "floor_s": statistics.median(totals),
                    "floor_by_backend_s": {
                        kind: statistics.median(spent[kind] for spent in floor_times)
                        for kind in (*kinds, "exploration")
                    },
                    "suite_exit_statuses": statuses,
                    "scripted_wait_s": scripted_wait,
                    "suite_over_floor": ratio,
                }
            )
        )


if __name__ == "__main__":
    main()
