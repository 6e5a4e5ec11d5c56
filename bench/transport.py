"""Round trips on real codex app-servers: the harness client beside the official SDK's.

Run: python bench/transport.py [--codex 0.171.0] [--servers 3] [--rounds 7] [--json]
Needs the official Python SDK (`pip install '.[bench]'`: openai-codex, its `CodexClient`).

Each client gets its own codex app-server on one isolated home and wiretap, started
sealed with the same argv and environment. A round times, in turn: `--requests`
sequential `thread/loaded/list` round trips on the harness client, the same on the
SDK's client (its untyped request path, `_request_raw`: the answer as JSON, as ours
gives it, with no pydantic model built), and `--inflight-requests` with `--inflight` of
them in flight at once on the harness client and on a bare pipe: a third codex whose
client only writes the requests and counts the answer lines (no JSON decoded, no id
matched), which shows what codex itself can answer on this machine. The rounds
interleave (A, B, C, D, A, B...), so load on a shared machine falls on all alike; the
figures are medians over the rounds. The rounds run on --servers fresh sets of codex
processes in turn, since one process's speed varies from one start to the next.

--json prints one object: `harness_over_sdk_sequential` (harness round trips per second
divided by the SDK's, the median of the per-round ratios), `inflight_100_req_s`, and the
bare pipe's `codex_ceiling_inflight_100_req_s` with `harness_over_ceiling_inflight`.
Exits 2 when the SDK or codex-cli is missing: no peer, no ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import statistics
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import describe  # noqa: E402
from codex_probe.harness.codex.appserver import app_server_argv, open_app_server  # noqa: E402
from codex_probe.harness.codex.install import install  # noqa: E402
from codex_probe.harness.codex.seal import seal_launch  # noqa: E402
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION  # noqa: E402
from codex_probe.harness.jsonrpc.client import JsonRpcClient  # noqa: E402
from codex_probe.rig.homes import IsolatedHome  # noqa: E402
from codex_probe.rig.wiretap import Wiretap  # noqa: E402

METHOD = "thread/loaded/list"
CLIENT_INFO = {"name": "codex-probe-bench", "version": "0"}
ANSWER = b'{"id":'  # how codex begins a line that answers a request
HANDSHAKE_TIMEOUT = 60.0
EXIT_GRACE = 5.0
NO_PEER = 2


@dataclass
class Figures:
    harness_s: list[float] = field(default_factory=list)  # seconds per sequential round trip
    sdk_s: list[float] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)  # harness req/s over SDK req/s, per round
    inflight_req_s: list[float] = field(default_factory=list)
    ceiling_req_s: list[float] = field(default_factory=list)  # the bare pipe, in flight


@contextlib.contextmanager
def process_environment(env: Mapping[str, str]) -> Iterator[None]:
    """os.environ is `env` alone for a while: the SDK hands codex a copy of os.environ
    (plus its own additions), and codex must get the same scrubbed environment as ours."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


async def harness_sequential(client: JsonRpcClient, count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        await client.request(METHOD, {})
    return (time.perf_counter() - started) / count


def sdk_sequential(client: Any, count: int) -> float:
    # The SDK's untyped request path: the same work as ours (no pydantic model of the
    # answer), so the ratio compares transports, not validation.
    started = time.perf_counter()
    for _ in range(count):
        client._request_raw(METHOD, {})
    return (time.perf_counter() - started) / count


async def harness_inflight(client: JsonRpcClient, count: int, inflight: int) -> float:
    each = count // inflight

    async def worker() -> None:
        for _ in range(each):
            await client.request(METHOD, {})

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(inflight)))
    return each * inflight / (time.perf_counter() - started)


class BarePipe:
    """A codex app-server fed through its pipes by a client that does nearly nothing: it
    writes prepared request lines and counts the lines that answer one (`{"id":...`)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.next_id = 1

    @classmethod
    async def start(cls, argv: list[str], env: Mapping[str, str], cwd: Path) -> BarePipe:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
            limit=2**24,
        )
        pipe = cls(process)
        try:
            await pipe._initialize()
        except BaseException:
            await pipe.close()
            raise
        return pipe

    async def _initialize(self) -> None:
        hello = {"id": 0, "method": "initialize", "params": {"clientInfo": CLIENT_INFO}}
        self.stdin.write(json.dumps(hello).encode() + b"\n")
        async with asyncio.timeout(HANDSHAKE_TIMEOUT):
            while not (line := await self.stdout.readline()).startswith(ANSWER):
                if not line:
                    raise EOFError("codex closed its stdout before answering initialize")
        self.stdin.write(b'{"method":"initialized"}\n')

    @property
    def stdin(self) -> asyncio.StreamWriter:
        assert self.process.stdin is not None
        return self.process.stdin

    @property
    def stdout(self) -> asyncio.StreamReader:
        assert self.process.stdout is not None
        return self.process.stdout

    async def inflight(self, count: int, inflight: int) -> float:
        """Requests per second with `inflight` of them unanswered at any time."""
        first = self.next_id
        self.next_id += count
        lines = [
            b'{"id":%d,"method":"%s","params":{}}\n' % (first + n, METHOD.encode())
            for n in range(count)
        ]
        started = time.perf_counter()
        self.stdin.write(b"".join(lines[:inflight]))
        sent, answered, partial = min(inflight, count), 0, b""
        while answered < count:
            chunk = await self.stdout.read(2**16)
            if not chunk:
                raise EOFError("codex closed its stdout")
            *complete, partial = (partial + chunk).split(b"\n")
            new = sum(1 for line in complete if line.startswith(ANSWER))
            answered += new
            if sent < count and new:
                more = min(new, count - sent)
                self.stdin.write(b"".join(lines[sent : sent + more]))
                sent += more
        return count / (time.perf_counter() - started)

    async def close(self) -> None:
        """Close stdin and wait; then SIGKILL the group (codex's helpers must not outlive it)."""
        with contextlib.suppress(OSError, RuntimeError):
            self.stdin.close()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(EXIT_GRACE):
                await self.process.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        await self.process.wait()


async def measure(binary: Path, args: argparse.Namespace, sdk_classes: Any) -> Figures:
    figures = Figures()
    for _ in range(args.servers):
        await measure_on_fresh_servers(binary, args, sdk_classes, figures)
    return figures


async def measure_on_fresh_servers(
    binary: Path, args: argparse.Namespace, sdk_classes: Any, figures: Figures
) -> None:
    """Rounds on a new codex for each client: how fast one process answers varies from
    one start to the next (thread placement, the machine's other load), so the rounds are
    spread over several starts instead of resting on one set."""
    codex_client_class, codex_config_class = sdk_classes
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url) as home:
            env = home.env()
            harness, _ = await open_app_server(binary, env=env, cwd=home.workdir)
            argv, _ = seal_launch(app_server_argv(binary), cwd=home.workdir)
            config = codex_config_class(launch_args_override=tuple(argv), cwd=str(home.workdir))
            sdk = codex_client_class(config)
            bare: BarePipe | None = None
            try:
                bare = await BarePipe.start(argv, env, home.workdir)
                with process_environment(env):
                    sdk.start()
                sdk.initialize()
                # Warm up both (first answers load code and caches on either side).
                await harness_sequential(harness, 50)
                sdk_sequential(sdk, 50)
                await harness_inflight(harness, args.inflight, args.inflight)
                await bare.inflight(args.inflight, args.inflight)
                for _ in range(args.rounds):
                    ours = await harness_sequential(harness, args.requests)
                    theirs = sdk_sequential(sdk, args.requests)
                    figures.harness_s.append(ours)
                    figures.sdk_s.append(theirs)
                    figures.ratios.append(theirs / ours)
                    figures.inflight_req_s.append(
                        await harness_inflight(harness, args.inflight_requests, args.inflight)
                    )
                    figures.ceiling_req_s.append(
                        await bare.inflight(args.inflight_requests, args.inflight)
                    )
            finally:
                sdk.close()
                await harness.close()
                if bare is not None:
                    await bare.close()


def load_sdk() -> Any:
    try:
        from openai_codex.client import CodexClient, CodexConfig
    except ImportError:
        return None
    return CodexClient, CodexConfig


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--codex", default=DEFAULT_CODEX_VERSION)
    parser.add_argument("--servers", type=int, default=3, help="fresh sets of servers, in turn")
    parser.add_argument("--rounds", type=int, default=7, help="per set of servers")
    parser.add_argument("--requests", type=int, default=300, help="sequential, per round")
    parser.add_argument("--inflight", type=int, default=100)
    parser.add_argument("--inflight-requests", type=int, default=5000, help="per round")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    sdk_classes = load_sdk()
    if sdk_classes is None:
        print(
            "bench/transport.py: the official SDK (openai-codex) is not installed, so there "
            "is no peer to compare with: pip install '.[bench]'",
            file=sys.stderr,
        )
        return NO_PEER
    try:
        binary = install(args.codex).binary
    except Exception as error:  # any failure to install leaves the bench without a server
        print(f"bench/transport.py: codex-cli {args.codex} unavailable: {error}", file=sys.stderr)
        return NO_PEER
    figures = asyncio.run(measure(binary, args, sdk_classes))
    report(args, figures)
    return 0


def report(args: argparse.Namespace, figures: Figures) -> None:
    from openai_codex import __version__ as sdk_version

    ratio = statistics.median(figures.ratios)
    inflight = statistics.median(figures.inflight_req_s)
    ceiling = statistics.median(figures.ceiling_req_s)
    if args.json:
        print(
            json.dumps(
                {
                    "harness_over_sdk_sequential": round(ratio, 3),
                    f"inflight_{args.inflight}_req_s": round(inflight),
                    f"codex_ceiling_inflight_{args.inflight}_req_s": round(ceiling),
                    "harness_over_ceiling_inflight": round(inflight / ceiling, 3),
                    "harness_sequential_us": round(statistics.median(figures.harness_s) * 1e6, 1),
                    "sdk_sequential_us": round(statistics.median(figures.sdk_s) * 1e6, 1),
                    "codex": args.codex,
                    "sdk": f"openai-codex {sdk_version}",
                    "rounds": args.rounds * args.servers,
                    "machine": describe(),
                }
            )
        )
        return
    print(f"machine: {describe()}")
    print(
        f"codex-cli {args.codex} app-server, {METHOD}; openai-codex {sdk_version}; "
        f"{args.rounds} interleaved rounds on each of {args.servers} fresh sets of servers, medians"
    )
    for name, values in (("harness client", figures.harness_s), ("SDK CodexClient", figures.sdk_s)):
        per = statistics.median(values)
        print(f"{name:16s} sequential: {per * 1e6:7.1f} us per round trip, {1 / per:7.0f} req/s")
    print(f"harness / SDK    sequential: {ratio:.2f}x (median of per-round ratios)")
    print(f"harness client   {args.inflight} in flight: {inflight:7.0f} req/s")
    print(
        f"bare pipe        {args.inflight} in flight: {ceiling:7.0f} req/s "
        f"(what codex answers a client that only writes and counts; harness at "
        f"{inflight / ceiling:.2f}x of it)"
    )


if __name__ == "__main__":
    sys.exit(main())
