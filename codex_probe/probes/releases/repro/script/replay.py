"""The replay of a bundle's steps on a fresh codex home, recorded as codex-probe records a
scenario: each step's answer (or refusal, or silence) and the model requests it caused."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from codex_probe.probes.releases.repro.script.app_server import AppServer, thread_of
from codex_probe.probes.releases.repro.script.bundle_files import Bundle
from codex_probe.probes.releases.repro.script.mock_provider import MockProvider
from codex_probe.probes.releases.repro.script.outcomes import (
    NO_ANSWER,
    NO_MODEL_REQUEST,
    NO_NOTIFICATION,
    REFUSED,
    SERVER_EXITED,
    UNEXPECTED_ANSWER,
    CouldNotRun,
    ServerGone,
    StepFailed,
    dig,
)
from codex_probe.probes.releases.repro.script.sealing import Sealer

PLACEHOLDER = re.compile(r"\{\{([^{}]+)\}\}")


class Replay:
    """The steps of requests.jsonl on a fresh codex home, recorded as codex-probe records
    them: each step's answer (or refusal, or silence) and the model requests it caused."""

    def __init__(self, codex: str, bundle: Bundle, timeout: float, root: Path) -> None:
        self.codex = codex
        self.bundle = bundle
        self.timeout = timeout
        self.home = root / "home"
        self.codex_home = self.home / "codex_home"
        self.workdir = root / "work"
        self.provider = MockProvider()
        self.sealer = Sealer(bundle.folder)
        self.server: AppServer | None = None
        self.names = {"workdir": str(self.workdir)}
        # The first model request of a turn begin_turn started, until finish_turn: every
        # model request after it is finish_turn's, as codex-probe counts them.
        self.open_turn: int | None = None
        self.codex_home.mkdir(parents=True, exist_ok=True)  # codex warns of a missing one
        self.workdir.mkdir(exist_ok=True)
        self.record: dict[str, Any] = {"steps": [], "received": [], "failure": None}

    def env(self) -> dict[str, str]:
        """codex's whole environment: its own HOME and CODEX_HOME, the caller's PATH only
        (codex's npm launcher runs `node`)."""
        return {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(self.home),
            "CODEX_HOME": str(self.codex_home),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TZ": "UTC",
        }

    def run(self) -> dict[str, Any]:
        config = self.bundle.config.replace("{{provider_url}}", self.provider.base_url)
        (self.codex_home / "config.toml").write_text(config, encoding="utf-8")
        try:
            for step in self.bundle.steps:
                self.step(step)
        except StepFailed as failed:
            self.record["failure"] = failed.failure
        finally:
            if self.server is not None:
                self.server.close()
            self.provider.close()
        self.record["model_requests"] = list(self.provider.requests)
        return self.record

    def step(self, step: dict[str, Any]) -> None:
        kind, label = step["step"], step["label"]
        for reply in self.bundle.replies.get(label, []):
            self.provider.queue_reply(reply)
        entry: dict[str, Any] = {"step": kind, "label": label, "result": None, "error": None}
        entry["unanswered_within"] = None
        if step.get("requires"):
            entry["requires"] = step["requires"]
        before = self.provider.count()
        try:
            if kind == "restart":
                entry["result"] = self.restart(step, entry)
            else:
                entry["result"] = self.ask_and_wait(step, entry, before)
        except ServerGone as gone:
            raise StepFailed(label, SERVER_EXITED, str(gone)) from None
        finally:
            entry["model_requests"] = self.caused(kind, before)
            self.record["steps"].append(entry)

    def caused(self, kind: str, before: int) -> list[int]:
        """The model requests a step made, as codex-probe counts them: none to a restart;
        the requests of a turn begun and not yet finished go to its finish_turn."""
        if kind == "restart":
            return []
        if kind == "begin_turn":
            self.open_turn = before
        elif kind == "finish_turn" and self.open_turn is not None:
            before, self.open_turn = self.open_turn + 1, None
        elif self.open_turn is not None:
            return []
        return list(range(before, self.provider.count()))

    def restart(self, step: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
        previous = self.server
        returncode = previous.close() if previous is not None else None
        command = self.sealer.wrap([self.codex, "app-server", "--listen", "stdio://"], self.workdir)
        self.server = AppServer(command, self.env(), self.workdir, self.record["received"])
        if "request" in step:  # initialize, then the initialized notification
            self.ask(step, entry)
            self.server.notify("initialized")
        result: dict[str, Any] = {"pid": self.server.pid}
        if previous is not None:
            result["previous"] = {"pid": previous.pid, "returncode": returncode}
        return result

    def ask_and_wait(self, step: dict[str, Any], entry: dict[str, Any], before: int) -> Any:
        """The step's request (if any), then what it waits for; the result as recorded."""
        answer = self.ask(step, entry) if "request" in step else None
        waits = self.fill(step.get("waits_for") or {})
        label, kind = step["label"], step["step"]
        waited: Any = None
        if "release_held" in waits:  # as codex-probe does: a new request, or the grace
            release = waits["release_held"]
            # The turn's first request is the held one: a release that drops it asks anew.
            since = before if self.open_turn is None else self.open_turn + 1
            self.provider.wait_for(since + release["model_requests"], release["within_s"])
            self.provider.release_held()
        if "settled_by" in waits:  # a turn whose silence is an answer, once it settled
            settled = waits["settled_by"]
            self.settled(label, settled["method"], settled["type"], waits["threadId"])
            waited = self.notification(
                label, waits["notification"], waits["threadId"], waits["within_s"]
            )
            if waited is None:
                entry["unanswered_within"] = waits["within_s"]
        elif "notification" in waits:
            waited = self.notification(label, waits["notification"], waits["threadId"])
        elif "model_requests" in waits:
            if not self.provider.wait_for(before + waits["model_requests"], self.timeout):
                detail = f"codex asked the model nothing within {self.timeout:g} s"
                raise StepFailed(label, NO_MODEL_REQUEST, detail)
        elif "thread_unloaded" in waits:
            waited = self.unloaded(label, waits["thread_unloaded"], waits["within_s"])
        if kind in ("turn", "compact"):
            result = {step["request"]["method"]: answer, waits["notification"]: waited}
            if "then" in waits:  # what comes after the turn (a command that outlived it)
                then = waits["then"]
                result["then"] = self.settled(
                    label, then["method"], then["type"], waits["threadId"]
                )
            return result
        if kind == "finish_turn":
            return waited
        if kind == "unsubscribe":
            return {**(answer or {}), "unloaded": waited}
        return answer

    def ask(self, step: dict[str, Any], entry: dict[str, Any]) -> Any:
        assert self.server is not None
        request, label = self.fill(step["request"]), step["label"]
        method, silence = request["method"], step.get("silence_after_s")
        answer = self.server.request(method, request.get("params"), silence or self.timeout)
        if answer is None:
            if silence is None:
                detail = f"{method} got no answer within {self.timeout:g} s"
                raise StepFailed(label, NO_ANSWER, detail)
            entry["unanswered_within"] = silence
            return None
        if "error" in answer:
            error = answer["error"] if isinstance(answer["error"], dict) else {}
            entry["error"] = {"code": error.get("code"), "message": error.get("message")}
            if error.get("data") is not None:
                entry["error"]["data"] = error["data"]
            if not step.get("refusal_is_an_answer"):
                detail = f"{method} was refused: error {error.get('code')}: {error.get('message')}"
                raise StepFailed(label, REFUSED, detail)
            return None
        result = answer.get("result")
        for name, path in step.get("remember", {}).items():
            value = dig(result, path.split("."))
            if not isinstance(value, str):
                raise StepFailed(label, UNEXPECTED_ANSWER, f"the answer to {method} has no {path}")
            self.names[name] = value
        return result

    def notification(
        self, label: str, method: str, thread_id: str, within_s: float | None = None
    ) -> dict[str, Any] | None:
        """The thread's next `method` notification; with `within_s`, None when it did not
        come within that many seconds (silence is then the step's answer)."""
        assert self.server is not None
        found = self.server.wait_notification(
            method, lambda params: thread_of(params) == thread_id, within_s or self.timeout
        )
        if found is None and within_s is None:
            detail = f"{method} of thread {thread_id} did not arrive within {self.timeout:g} s"
            raise StepFailed(label, NO_NOTIFICATION, detail)
        return found

    def settled(self, label: str, method: str, kind: str, thread_id: str) -> dict[str, Any]:
        """The thread's `method` notification of an item of `kind` (its turn has the input,
        its compaction is done, a command that outlived its turn ended), as codex-probe
        waits for it."""
        assert self.server is not None

        def matches(params: dict[str, Any]) -> bool:
            item = params.get("item")
            return (
                thread_of(params) == thread_id
                and isinstance(item, dict)
                and (item.get("type") == kind)
            )

        found = self.server.wait_notification(method, matches, self.timeout)
        if found is None:
            detail = f"{method} of a {kind} item did not arrive within {self.timeout:g} s"
            raise StepFailed(label, NO_NOTIFICATION, detail)
        return found

    def unloaded(self, label: str, thread_id: str, within_s: float) -> bool:
        """Whether the thread is unloaded: its thread/closed is awaited up to `within_s`
        seconds (releases that unload send it at once), then thread/loaded/list asked."""
        assert self.server is not None
        self.server.wait_notification(
            "thread/closed", lambda params: thread_of(params) == thread_id, within_s
        )
        listed = self.server.request("thread/loaded/list", {}, self.timeout)
        if listed is None or "error" in listed:
            raise StepFailed(label, NO_ANSWER, f"thread/loaded/list answered {listed}")
        return thread_id not in (listed.get("result") or {}).get("data", [])

    def fill(self, value: Any) -> Any:
        """`value` with each {{name}} replaced by what this run's answers named so."""
        if isinstance(value, dict):
            return {key: self.fill(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.fill(item) for item in value]
        if isinstance(value, str):
            return PLACEHOLDER.sub(lambda found: self._name(found.group(1)), value)
        return value

    def _name(self, name: str) -> str:
        if name not in self.names:
            raise CouldNotRun(f"requests.jsonl uses {{{{{name}}}}} before an answer named it")
        return self.names[name]
