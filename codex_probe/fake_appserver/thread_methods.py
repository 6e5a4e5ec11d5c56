"""The fake's thread handlers: thread/start, resume, fork, read, unsubscribe,
thread/loaded/list and model/list, on the threads the server holds (its loop, faults and
output are server.py's; turns are turns.py's)."""

from __future__ import annotations

import asyncio
import copy
import os
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from codex_probe.fake_appserver.config import ProviderConfig
from codex_probe.fake_appserver.failures import RequestFailed
from codex_probe.fake_appserver.layout import (
    initial_context,
    normalize_base,
    normalize_developer,
)
from codex_probe.fake_appserver.profile import (
    ColdResumeBase,
    ColdResumeDeveloper,
    ForkInstructions,
    LoadedResume,
    Profile,
    Unsubscribe,
)
from codex_probe.fake_appserver.store import ThreadStore
from codex_probe.fake_appserver.surface_profile import THREAD_READ_UNLOADED
from codex_probe.fake_appserver.threads import LoadedThread
from codex_probe.fake_appserver.wire import Wire, new_id, now_s


class ThreadMethods:
    """The thread handlers, mixed into the server, which gives them what they use: its
    profile and provider, its threads (loaded and stored), and how it notifies the client
    and runs work beside the request."""

    profile: Profile
    provider: ProviderConfig
    store: ThreadStore
    loaded: dict[str, LoadedThread]
    wire: Wire
    client_name: str
    # What the book shows of forks (book_answers.py): their thread/started without turns,
    # the turn in flight listed interrupted.
    fork_announced_without_turns: bool
    fork_interrupts_turn: bool

    def notify(self, method: str, params: Any) -> None:
        raise NotImplementedError  # the server's

    def spawn(self, work: Awaitable[None]) -> None:
        raise NotImplementedError  # the server's

    async def thread_start(self, params: Any) -> Any:
        thread_id = new_id()
        base = normalize_base(
            self.profile, params.get("baseInstructions"), "baseInstructions" in params
        )
        developer = normalize_developer(params.get("developerInstructions"))
        record: dict[str, Any] = {
            "id": thread_id,
            "cwd": str(params.get("cwd") or os.getcwd()),
            "created_at": now_s(),
            "updated_at": now_s(),
            "preview": "",
            "path": str(self.store.path_of(thread_id)),
            "model": str(params.get("model") or self.provider.model),
            "provider_id": self.provider.provider_id,
            "originator": self.client_name,
            "base_original": base,
            "developer_original": developer,
            "history": [],
            "has_initial_context": False,
            "turns": [],
            # What the thread's commands may do (tool_calls.py): thread/start, else config.
            "approval_policy": _policy(params.get("approvalPolicy"), self.provider.approval_policy),
            "sandbox_mode": str(params.get("sandbox") or self.provider.sandbox_mode),
            "reasoning_effort": _reasoning_effort(params.get("config")),
        }
        # Not saved yet: upstream writes the rollout with the first turn (TurnRunner).
        thread = LoadedThread(record=record, base=base, developer=developer)
        self.loaded[thread_id] = thread
        body = self.wire.thread(record, status="idle", turns=[])
        self.spawn(self._after(lambda: self.notify("thread/started", {"thread": body})))
        return self.wire.thread_response("thread_start", body, record)

    async def _after(self, emit: Callable[[], None]) -> None:
        # Upstream answers the request first, then notifies.
        await asyncio.sleep(0)
        emit()

    async def thread_resume(self, params: Any) -> Any:
        thread_id = self._checked_thread_id(params)
        behaviour = self.profile.behaviour
        loaded = self.loaded.get(thread_id)
        unloads = behaviour.unsubscribe.value is Unsubscribe.STAYS_LISTED_UNTIL_RESUME
        if loaded is not None and loaded.unsubscribed and unloads:
            # Measured on 0.171.0: an unsubscribed thread is unloaded when resumed.
            del self.loaded[thread_id]
            loaded = None
            self.notify(
                "thread/status/changed",
                {"threadId": thread_id, "status": self.wire.status("notLoaded")},
            )
        stored = self.store.load(thread_id)
        if stored is None:
            # Measured on both versions: no rollout before the first turn, loaded or not.
            raise RequestFailed(*self.profile.errors.no_rollout.answer(thread_id=thread_id))
        if loaded is None:
            record = stored
            # Loading the thread, codex applies the policy and sandbox sent (the book's
            # unloaded resumes show them echoed); a loaded thread keeps its own.
            for sent, kept in (("approvalPolicy", "approval_policy"), ("sandbox", "sandbox_mode")):
                if isinstance(params.get(sent), str):  # a granular policy is not imitated
                    record[kept] = params[sent]
            # A resume in a new process (or after unsubscribe): measured per profile.
            base = record["base_original"]
            if (
                "baseInstructions" in params
                and params["baseInstructions"] is not None
                and behaviour.cold_resume_base.value is ColdResumeBase.PARAM_ELSE_ORIGINAL
            ):
                base = normalize_base(self.profile, params["baseInstructions"], True)
            developer = record["developer_original"]
            if behaviour.cold_resume_developer.value is ColdResumeDeveloper.PARAM_ON_REINJECTION:
                developer = normalize_developer(params.get("developerInstructions"))
            loaded = LoadedThread(record=record, base=base, developer=developer)
            self.loaded[thread_id] = loaded
            # Measured on 0.120.0 and 0.171.0: loading a thread from disk reports it idle,
            # before the resume is answered.
            self.notify(
                "thread/status/changed",
                {"threadId": thread_id, "status": self.wire.status("idle")},
            )
        else:
            loaded.unsubscribed = False  # a resume subscribes the client again
            if behaviour.loaded_resume.value is LoadedResume.APPLIES_INSTRUCTIONS:
                if params.get("baseInstructions") is not None:
                    loaded.base = normalize_base(self.profile, params["baseInstructions"], True)
                loaded.developer = (
                    normalize_developer(params.get("developerInstructions")) or loaded.developer
                )
        record = loaded.record
        body = self.wire.thread(
            record,
            status="active" if loaded.active else "idle",
            turns=[self.wire.turn(t, view="full") for t in loaded.listed_turns()],
        )
        return self.wire.thread_response("thread_resume", body, record)

    async def thread_fork(self, params: Any) -> Any:
        """A new thread with the parent's history and turns (measured on 0.120.0 and
        0.171.0: its first turn sends the parent's history; thread/started, no status
        change until its first turn), up to `lastTurnId` where one is sent; its
        instructions as `behaviour.fork` says."""
        parent_id = self._checked_thread_id(params)
        parent = self.loaded.get(parent_id)
        source = parent.record if parent is not None else self.store.load(parent_id)
        if source is None or not self.store.holds(parent_id):
            raise RequestFailed(*self.profile.errors.no_rollout.answer(thread_id=parent_id))
        thread_id = new_id()
        record: dict[str, Any] = copy.deepcopy(source)
        if parent is not None and parent.active is not None and self.fork_interrupts_turn:
            # The turn in flight, as far as it got: the fork's last turn, interrupted.
            cut = copy.deepcopy(parent.active.turn)
            cut.update(status="interrupted", completed_at=None, duration_ms=None)
            cut["items"] = [i for i in cut["items"] if i["type"] == "userMessage"]
            record["turns"] = [*record["turns"], cut]
        named = [turn.get("id") for turn in record["turns"]]
        last = params.get("lastTurnId")
        if last in named:
            # Forked at that turn: the turns after it are not the fork's (its history is
            # kept whole: no scenario forks at a turn, and the surface lists the turns).
            record["turns"] = record["turns"][: named.index(last) + 1]
        record["turns_at_fork"] = len(record["turns"])
        record.update(
            id=thread_id,
            created_at=now_s(),
            updated_at=now_s(),
            path=str(self.store.path_of(thread_id)),
            originator=self.client_name,
            forked_from=parent_id,
        )
        base = parent.base if parent is not None else record["base_original"]
        developer = parent.developer if parent is not None else record["developer_original"]
        rule = self.profile.behaviour.fork.value
        if rule is not ForkInstructions.PARENT_KEPT and params.get("baseInstructions") is not None:
            base = normalize_base(self.profile, params["baseInstructions"], True)
        if rule is ForkInstructions.BOTH_FROM_FORK and "developerInstructions" in params:
            developer = normalize_developer(params.get("developerInstructions"))
            context = initial_context(self.profile, developer, record["cwd"])
            contexts = [i for i, e in enumerate(record["history"]) if e["kind"] == "context"]
            for index, entry in zip(contexts, context, strict=False):
                record["history"][index] = entry
        record["base_original"], record["developer_original"] = base, developer
        self.store.save(record)
        self.loaded[thread_id] = LoadedThread(record=record, base=base, developer=developer)
        turns = [self.wire.turn(t, view="full") for t in record["turns"]]
        body = self.wire.thread(record, status="idle", turns=turns)
        if "forkedFromId" in body:
            body["forkedFromId"] = parent_id
        announced = {**body, "turns": []} if self.fork_announced_without_turns else body
        self.spawn(self._after(lambda: self.notify("thread/started", {"thread": announced})))
        # The fork's answer has the fields of thread/start's (measured on 0.120.0 and 0.171.0).
        return self.wire.thread_response("thread_start", body, record)

    def _checked_thread_id(self, params: Any) -> str:
        thread_id = str(params.get("threadId", ""))
        try:
            uuid.UUID(thread_id)
        except ValueError:
            position, char = next(
                ((i + 1, c) for i, c in enumerate(thread_id) if c not in "0123456789abcdefABCDEF-"),
                (1, thread_id[:1]),
            )
            raise RequestFailed(
                *self.profile.errors.invalid_thread_id.answer(char=char, position=position)
            ) from None
        return thread_id

    async def thread_read(self, params: Any) -> Any:
        thread_id = self._checked_thread_id(params)
        loaded = self.loaded.get(thread_id)
        record = loaded.record if loaded else self.store.load(thread_id)
        if record is None:
            raise RequestFailed(*self.profile.errors.no_rollout.answer(thread_id=thread_id))
        include = bool(params.get("includeTurns"))
        if include and not self.store.holds(thread_id):
            # Measured: the turns of a thread are read from its rollout, which the first
            # turn writes; before that the read is refused (each version in its words).
            raise RequestFailed(
                *self.profile.errors.turns_before_first_turn.answer(thread_id=thread_id)
            )
        listed = loaded.listed_turns() if loaded else record["turns"]
        turns = [self.wire.turn(t, view="full") for t in listed] if include else []
        status = "notLoaded" if loaded is None else ("active" if loaded.active else "idle")
        unloaded = self.profile.wire.templates.get(THREAD_READ_UNLOADED)
        if (
            loaded is None
            and isinstance(unloaded, dict)
            and isinstance(unloaded.get("thread"), dict)
        ):
            # A thread read from disk: shaped as the release answers it (measured per profile).
            thread = self.wire.thread(
                record, status=status, turns=turns, template=unloaded["thread"]
            )
            if "readState" in unloaded and _nothing_of_its_own(record):
                # A fork has read nothing of its own yet (0.165.0's book: a fork, loaded
                # or not, reads `firstUnread: null` and an initial revision).
                read = {"firstUnread": None, "revision": f"initial:{thread_id}"}
                return {**unloaded, "thread": thread, "readState": read}
            return {**unloaded, "thread": thread}
        return {"thread": self.wire.thread(record, status=status, turns=turns)}

    async def thread_unsubscribe(self, params: Any) -> Any:
        thread_id = str(params.get("threadId", ""))
        thread = self.loaded.get(thread_id)
        template = dict(self.wire.template("unsubscribe"))
        template["status"] = "unsubscribed" if thread is not None else "notLoaded"
        if thread is None:
            return template
        if thread.unsubscribed:
            # codex: loaded, but this connection no longer subscribed to it.
            return {**template, "status": "notSubscribed"}
        if thread.active and thread.active.task:
            thread.active.task.cancel()
        unsubscribe = self.profile.behaviour.unsubscribe.value
        if unsubscribe is Unsubscribe.CLOSES_THREAD:
            del self.loaded[thread_id]
            self.spawn(self._after(lambda: self._announce_closed(thread_id)))
        else:  # the thread stays loaded, without this client's subscription
            thread.unsubscribed = True
        return template

    def _announce_closed(self, thread_id: str) -> None:
        self.notify(
            "thread/status/changed",
            {"threadId": thread_id, "status": self.wire.status("notLoaded")},
        )
        self.notify("thread/closed", {"threadId": thread_id})

    async def thread_loaded_list(self, params: Any) -> Any:
        return {"data": sorted(self.loaded), "nextCursor": None}

    async def model_list(self, params: Any) -> Any:
        model = self.provider.model
        return {
            "data": [
                {
                    "id": model,
                    "model": model,
                    "displayName": model,
                    "description": "fake-codex model",
                    "hidden": False,
                    "isDefault": True,
                    "defaultReasoningEffort": "medium",
                    "supportedReasoningEfforts": [],
                }
            ],
            "nextCursor": None,
        }


def _reasoning_effort(config: Any) -> str | None:
    """The reasoning effort a `config` override on thread/start gives the thread, which
    its answer shows (measured on 0.120.0 and 0.171.0); the other keys of `config` are not
    imitated."""
    effort = config.get("model_reasoning_effort") if isinstance(config, dict) else None
    return effort if isinstance(effort, str) else None


def _nothing_of_its_own(record: dict[str, Any]) -> bool:
    """Whether the thread is a fork with no turn since it was forked."""
    at_fork = record.get("turns_at_fork")
    return isinstance(at_fork, int) and len(record["turns"]) <= at_fork


def _policy(value: Any, configured: str) -> str:
    """An approval policy: a named one, else the configuration's (a granular one is not
    imitated: the configuration's applies)."""
    return value if isinstance(value, str) else configured
