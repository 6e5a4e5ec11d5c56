"""Drive a real codex app-server against the wiretap and save what it sends.

    python -m tools.explore --codex PATH --out DIR [--scenario NAME ...]

Each scenario runs in its own isolated home and writes, under DIR/<scenario>/:
transcript.jsonl (JSON-RPC both ways, each entry tagged with the codex process it
belongs to), requests.json (every captured provider request), layout.txt (each model
request's instructions and input, abbreviated), stderr.N.txt (the stderr tail of
codex process N, taken when it ended) and a copy of config.toml. The observations
in docs/observations/ were written from these. This is a measuring tool, not a
probe: it records, it does not judge.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.appserver import CLIENT_NAME, CLIENT_VERSION
from codex_probe.harness.driver.params import start_turn_params, text_input
from codex_probe.harness.jsonrpc.client import JsonRpcClient
from codex_probe.harness.jsonrpc.errors import TransportError
from codex_probe.harness.jsonrpc.process import STDERR_TAIL_LINES
from codex_probe.rig.backends import backend_at
from codex_probe.rig.homes import OPENAI_PROVIDER_NAME, IsolatedHome
from codex_probe.rig.session import Session, needed
from codex_probe.rig.wiretap import CapturedRequest, Reply, Wiretap

TURN_TIMEOUT_S = 60.0
EXIT_GRACE_S = 3.0
CLIENT_INFO = {"clientInfo": {"name": CLIENT_NAME, "version": CLIENT_VERSION}}


def markers(tag: str) -> dict[str, str]:
    return {
        "baseInstructions": f"BASE_MARKER_{tag}: you are the probe agent.",
        "developerInstructions": f"DEV_MARKER_{tag}: answer briefly.",
    }


class Capture:
    """One scenario on a `Session`: its answers are observations, and its files are saved.

    `call` returns refusals instead of raising them; `finish` writes the transcript, with
    each entry tagged by the process it belongs to, the captured model requests and
    their layouts, and each process's stderr tail.
    """

    def __init__(self, session: Session, out: Path, name: str) -> None:
        self.session, self.out, self.name = session, out / name, name
        self.tap, self.home = session.tap, session.home
        self.out.mkdir(parents=True, exist_ok=True)

    @property
    def rpc(self) -> JsonRpcClient:
        return self.session.client

    async def spawn(self, initialize: bool = True) -> None:
        await self.stop()
        try:
            await self.session.open(initialize=initialize)
        except TransportError as error:  # the handshake failed; keep what codex said
            self._write_stderr(len(self.session.processes) + 1, error.stderr_tail)
            raise

    async def restart(self) -> None:
        await self.spawn()

    async def stop(self) -> None:
        """End the current codex process (stdin, wait, SIGTERM, SIGKILL); save its stderr."""
        if not self.session.running:
            return
        try:
            await self.session.close_current(grace=EXIT_GRACE_S)
        finally:
            process = self.session.processes[-1]
            tail = process.client.stderr_tail(STDERR_TAIL_LINES)
            self._write_stderr(len(self.session.processes), tail)

    def _write_stderr(self, generation: int, tail: str) -> None:
        text = tail + "\n" if tail else ""
        (self.out / f"stderr.{generation}.txt").write_text(text, encoding="utf-8")

    async def call(self, method: str, params: Any = None) -> dict[str, Any]:
        """`{"result": ...}` or `{"error": {"code", "message", "data"}}`."""
        return await self.session.call(method, params)

    def forget_notifications(self) -> None:
        """Drop buffered notifications, so the next wait sees only newer ones."""
        self.rpc.drain_notifications()

    async def wait_turn_completed(self) -> None:
        await self.rpc.wait_for_notification("turn/completed", timeout=TURN_TIMEOUT_S)

    async def start_thread(self, **params: Any) -> str:
        params.setdefault("cwd", str(self.home.workdir))
        response = await self.call("thread/start", params)
        thread_id: str = response["result"]["thread"]["id"]
        return thread_id

    async def turn(self, thread_id: str, text: str) -> dict[str, Any]:
        """Start a turn and wait for its turn/completed; returns the turn/start answer."""
        self.forget_notifications()
        response = await self.call(
            "turn/start", needed(start_turn_params(text, thread_id), "a turn")
        )
        if "result" in response:
            await self.wait_turn_completed()
        return response

    async def compact(self, thread_id: str) -> dict[str, Any]:
        self.forget_notifications()
        response = await self.call("thread/compact/start", {"threadId": thread_id})
        if "result" in response:
            await self.wait_turn_completed()
        return response

    async def wait_unloaded(self, thread_id: str, timeout: float) -> bool:
        """Poll thread/loaded/list; False if the thread is still loaded at the deadline
        (0.171 keeps an unsubscribed thread loaded), which is an observation too."""
        deadline = time.monotonic() + timeout
        while thread_id in (await self.call("thread/loaded/list", {}))["result"]["data"]:
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.25)
        return True

    def transcript_lines(self) -> Iterator[dict[str, Any]]:
        """Transcript entries tagged with their process ("process": 1, 2, ...): request ids
        start again in every process, so this is how a reader pairs them."""
        for generation, process in enumerate(self.session.processes, 1):
            for entry in process.entries:
                yield {"process": generation, **entry.to_json()}

    async def finish(self) -> None:
        await self.stop()
        with (self.out / "transcript.jsonl").open("w", encoding="utf-8") as sink:
            for line in self.transcript_lines():
                sink.write(json.dumps(line) + "\n")
        abandoned = set(self.tap.abandoned)
        requests = [{**r.to_json(), "abandoned": r.index in abandoned} for r in self.tap.requests]
        (self.out / "requests.json").write_text(json.dumps(requests, indent=1), encoding="utf-8")
        (self.out / "layout.txt").write_text(
            render_layouts(self.tap.requests, abandoned), encoding="utf-8"
        )


# -- layout: each model request, abbreviated -----------------------------------
def _abbrev(text: str, limit: int = 110) -> str:
    flat = text.replace("\n", "\\n")
    return flat if len(flat) <= limit else f"{flat[:limit]}... [{len(text)} chars]"


def describe_item(item: dict[str, Any]) -> str:
    kind = item.get("type", "?")
    if kind == "message":
        texts = [c.get("text", "") for c in item.get("content", []) if isinstance(c, dict)]
        parts = " | ".join(_abbrev(t) for t in texts)
        return f"message role={item.get('role')} parts={len(texts)}: {parts}"
    if kind == "compaction":
        return f"compaction: {_abbrev(str(item.get('encrypted_content')))}"
    return f"{kind}: {_abbrev(json.dumps(item))}"


def render_layouts(requests: list[CapturedRequest], abandoned: set[int]) -> str:
    lines: list[str] = []
    for r in requests:
        note = " (codex hung up before the answer was complete)" if r.index in abandoned else ""
        lines.append(f"=== #{r.index} {r.method} {r.path}{note}")
        body = r.body if isinstance(r.body, dict) else {}
        if not body:
            lines.append(f"  (body) {_abbrev(r.body_text or '')}")
            continue
        other = sorted(k for k in body if k not in ("instructions", "input", "tools"))
        lines.append(f"  keys: {other}; tools: {len(body.get('tools') or [])}")
        lines.append(f"  instructions: {_abbrev(str(body.get('instructions')))}")
        for position, item in enumerate(body.get("input") or []):
            lines.append(f"  input[{position}] {describe_item(item)}")
    return "\n".join(lines) + "\n"


# -- scenarios -------------------------------------------------------------------
async def lifecycle(s: Capture) -> None:
    """start → 2 turns → compact → turn → resume loaded (V2) → turn → restart + resume
    (V3) → turn → restart + resume (V3, developer "") → turn → restart + resume
    without instruction fields → turn → compact → turn."""
    await s.spawn()
    thread = await s.start_thread(**markers("V1"))
    await s.turn(thread, "USER_TURN_1")
    await s.turn(thread, "USER_TURN_2")
    await s.compact(thread)
    await s.turn(thread, "USER_TURN_3_AFTER_COMPACT")
    await s.call("thread/resume", {"threadId": thread, **markers("V2")})
    await s.turn(thread, "USER_TURN_4_AFTER_LOADED_RESUME_V2")
    await s.restart()
    await s.call("thread/resume", {"threadId": thread, **markers("V3")})
    await s.turn(thread, "USER_TURN_5_AFTER_COLD_RESUME_V3")
    await s.restart()
    v3_empty_dev = {**markers("V3"), "developerInstructions": ""}
    await s.call("thread/resume", {"threadId": thread, **v3_empty_dev})
    await s.turn(thread, "USER_TURN_6_AFTER_COLD_RESUME_EMPTY_DEV")
    await s.restart()
    await s.call("thread/resume", {"threadId": thread})
    await s.turn(thread, "USER_TURN_7_AFTER_COLD_RESUME_NO_FIELDS")
    await s.compact(thread)
    await s.turn(thread, "USER_TURN_8_AFTER_SECOND_COMPACT")
    await s.call("thread/unsubscribe", {"threadId": thread})
    # Unsubscribe answers before the thread is unloaded; resuming in between fails
    # ("is closing") on 0.120, so wait until thread/loaded/list no longer has it.
    await s.wait_unloaded(thread, timeout=3.0)
    await s.call("thread/resume", {"threadId": thread, **markers("V4")})
    await s.turn(thread, "USER_TURN_9_AFTER_UNSUBSCRIBE_RESUME_V4")


async def resume_then_compact(s: Capture) -> None:
    """Which instructions does compaction re-inject after a loaded resume, a cold
    resume with new values, and a cold resume without instruction fields?"""
    await s.spawn()
    thread = await s.start_thread(**markers("V1"))
    await s.turn(thread, "RC_TURN_1")
    await s.call("thread/resume", {"threadId": thread, **markers("V2")})
    await s.compact(thread)
    await s.turn(thread, "RC_TURN_2_AFTER_LOADED_RESUME_V2_AND_COMPACT")
    await s.restart()
    await s.call("thread/resume", {"threadId": thread, **markers("V3")})
    await s.compact(thread)
    await s.turn(thread, "RC_TURN_3_AFTER_COLD_RESUME_V3_AND_COMPACT")
    await s.restart()
    await s.call("thread/resume", {"threadId": thread})
    await s.compact(thread)
    await s.turn(thread, "RC_TURN_4_AFTER_COLD_RESUME_NO_FIELDS_AND_COMPACT")


async def legacy_thread(s: Capture) -> None:
    """Spec 6.3: the old full prompt in turn 1, then resumed with instruction fields."""
    await s.spawn()
    thread = await s.start_thread()
    await s.turn(thread, "LEGACY_FULL_PROMPT: you are the legacy agent. USER: hello")
    await s.call("thread/resume", {"threadId": thread, **markers("NEW")})
    await s.turn(thread, "LEGACY_TURN_2_AFTER_LOADED_RESUME")
    await s.restart()
    await s.call("thread/resume", {"threadId": thread, **markers("NEW")})
    await s.turn(thread, "LEGACY_TURN_3_AFTER_COLD_RESUME")


async def resume_empty_values(s: Capture) -> None:
    """Cold resume with "" (then a compaction) and with null, for both fields."""
    await s.spawn()
    thread = await s.start_thread(**markers("R"))
    await s.turn(thread, "RE_TURN_1")
    await s.restart()
    await s.call(
        "thread/resume", {"threadId": thread, "baseInstructions": "", "developerInstructions": ""}
    )
    await s.turn(thread, "RE_TURN_2_AFTER_COLD_RESUME_BOTH_EMPTY")
    await s.compact(thread)
    await s.turn(thread, "RE_TURN_3_AFTER_COLD_RESUME_BOTH_EMPTY_AND_COMPACT")
    await s.restart()
    await s.call(
        "thread/resume",
        {"threadId": thread, "baseInstructions": None, "developerInstructions": None},
    )
    await s.turn(thread, "RE_TURN_4_AFTER_COLD_RESUME_BOTH_NULL")


async def catalog_model(s: Capture) -> None:
    """Does a model from codex's own catalog change where base instructions go?"""
    await s.spawn()
    for model in ("gpt-5.4", "gpt-5.5"):
        thread = await s.start_thread(model=model, **markers("CAT"))
        await s.turn(thread, f"CATALOG_MODEL_{model}")


async def empty_values(s: Capture) -> None:
    """thread/start with "", null and omitted for both fields, and each field alone."""
    await s.spawn()
    cases: dict[str, dict[str, Any]] = {
        "BOTH_MARKERS": markers("E"),
        "BOTH_EMPTY": {"baseInstructions": "", "developerInstructions": ""},
        "BOTH_NULL": {"baseInstructions": None, "developerInstructions": None},
        "BOTH_OMITTED": {},
        "BASE_EMPTY_DEV_MARKER": {"baseInstructions": "", "developerInstructions": "DEV_MARKER_E"},
        "BASE_MARKER_DEV_EMPTY": {"baseInstructions": "BASE_MARKER_E", "developerInstructions": ""},
    }
    for case, params in cases.items():
        thread = await s.start_thread(**params)
        await s.turn(thread, f"EMPTY_CASE_{case}")


async def errors(s: Capture) -> None:
    """The error answers the driver's fallback rules rely on."""
    await s.spawn(initialize=False)
    await s.call("thread/start", {"cwd": str(s.home.workdir)})  # before initialize
    await s.call("initialize", CLIENT_INFO)
    await s.rpc.notify("initialized")
    await s.call("initialize", CLIENT_INFO)
    await s.call("no/such/method", {})
    await s.call("thread/resume", {"threadId": str(uuid.uuid4())})
    await s.call("thread/resume", {"threadId": "not-a-uuid"})
    await s.call("turn/start", {"threadId": str(uuid.uuid4()), "input": text_input("x")})
    thread = await s.start_thread(**markers("ERR"))
    first = await s.turn(thread, "ERR_TURN_1")
    finished_turn = first["result"]["turn"]["id"]
    steer = {"threadId": thread, "input": text_input("STEER_TEXT")}
    await s.call("turn/steer", {**steer, "expectedTurnId": finished_turn})  # idle thread
    # A held-back answer keeps the next turn active while we steer it.
    s.tap.queue_replies(Reply(text="slow reply", delay_s=6.0))
    s.forget_notifications()
    started = await s.call(
        "turn/start", {"threadId": thread, "input": text_input("ERR_TURN_2_SLOW")}
    )
    active_turn = started["result"]["turn"]["id"]
    await s.call("turn/steer", {**steer, "expectedTurnId": "not-the-active-turn"})
    await s.call("turn/steer", {**steer, "expectedTurnId": active_turn})
    await s.wait_turn_completed()
    # A thread that exists on disk but is not loaded in this process.
    await s.restart()
    await s.call("turn/start", {"threadId": thread, "input": text_input("x")})
    await s.call("turn/steer", {**steer, "expectedTurnId": active_turn})
    await s.call("thread/compact/start", {"threadId": thread})


async def openai_named_compaction(s: Capture) -> None:
    """Same provider, but named "OpenAI": does compaction take another path?"""
    await s.spawn()
    thread = await s.start_thread(**markers("OAI"))
    await s.turn(thread, "OAI_TURN_1")
    await s.compact(thread)
    await s.turn(thread, "OAI_TURN_2_AFTER_COMPACT")


async def auto_compaction(s: Capture) -> None:
    """A reported usage above model_auto_compact_token_limit: when and how does codex
    compact on its own, and what does the next request hold?"""
    await s.spawn()
    thread = await s.start_thread(**markers("AUTO"))
    s.tap.queue_replies(Reply(text="big reply", input_tokens=5000, output_tokens=100))
    await s.turn(thread, "AUTO_TURN_1_REPORTS_5100_TOKENS")
    await s.turn(thread, "AUTO_TURN_2")
    await s.turn(thread, "AUTO_TURN_3")


Scenario = Callable[[Capture], Awaitable[None]]
# Each scenario, and how its home differs from the default one.
SCENARIOS: dict[str, tuple[Scenario, dict[str, Any]]] = {
    "lifecycle": (lifecycle, {}),
    "resume_then_compact": (resume_then_compact, {}),
    "legacy_thread": (legacy_thread, {}),
    "resume_empty_values": (resume_empty_values, {}),
    "catalog_model": (catalog_model, {}),
    "empty_values": (empty_values, {}),
    "errors": (errors, {}),
    "openai_named_compaction": (
        openai_named_compaction,
        {"provider_name": OPENAI_PROVIDER_NAME},
    ),
    "auto_compaction": (
        auto_compaction,
        {"extra_config": {"model_auto_compact_token_limit": 1000}},
    ),
}


async def run_scenario(codex: str, out: Path, name: str) -> None:
    scenario, home_options = SCENARIOS[name]
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url, **home_options) as home:
            capture = Capture(Session(backend_at(Path(codex)), tap, home), out, name)
            try:
                await scenario(capture)
            finally:
                await capture.finish()
                (capture.out / "config.toml").write_text(home.config_path.read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.explore", description=__doc__)
    parser.add_argument("--codex", required=True, help="path of the codex executable")
    parser.add_argument("--out", required=True, type=Path, help="directory for the captures")
    parser.add_argument("--scenario", action="append", choices=sorted(SCENARIOS))
    args = parser.parse_args(argv)
    failed = False
    for name in args.scenario or list(SCENARIOS):
        print(f"scenario {name} ...", flush=True)
        try:
            asyncio.run(run_scenario(args.codex, args.out, name))
        except Exception as error:  # keep going: the captures so far are still saved
            failed = True
            print(f"scenario {name} failed: {type(error).__name__}: {error}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
