"""Objects shaped like the imitated version's: real templates with our values filled in.

Only keys the template has are set, so a field a version does not know never appears.
"""

from __future__ import annotations

import copy
import time
import uuid
from typing import Any, Literal

from codex_probe.fake_appserver.profile import Profile
from codex_probe.fake_appserver.turn_profile import CompletedTurnItems

# Which items a turn shows where (measured on 0.171.0, whose turns name their view):
# none when it starts or has failed, in turn/completed what the profile's
# `turns.completed_turn_items` says, every item in thread/read and thread/resume.
ItemsView = Literal["notLoaded", "summary", "full"]


def now_s() -> int:
    return int(time.time())


def now_ms() -> int:
    return int(time.time() * 1000)


def new_id() -> str:
    """A time-ordered UUID like upstream's v7 ids (our own encoding: time, then random)."""
    millis = now_ms()
    random_bits = uuid.uuid4().int & ((1 << 80) - 1)
    value = (millis << 80) | random_bits
    value = (value & ~(0xF << 76)) | (0x7 << 76)  # version 7
    value = (value & ~(0x3 << 62)) | (0x2 << 62)  # RFC 4122 variant
    return str(uuid.UUID(int=value))


def _fill(template: Any, values: dict[str, Any]) -> Any:
    filled = copy.deepcopy(template)
    for key, value in values.items():
        if key in filled:
            filled[key] = value
    return filled


def _effort(record: dict[str, Any]) -> dict[str, Any]:
    """`reasoningEffort` where the thread was given one (a record without says nothing)."""
    effort = record.get("reasoning_effort")
    return {} if effort is None else {"reasoningEffort": effort}


class Wire:
    """Builds protocol objects for one profile."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile

    def template(self, name: str) -> Any:
        return self.profile.template(name)

    @property
    def stamps_notifications(self) -> bool:
        return bool(self.template("notifications_carry_emitted_at_ms"))

    def thread(
        self, record: dict[str, Any], *, status: str, turns: list[Any], template: Any = None
    ) -> Any:
        """A thread as the `thread` template (or `template`) shapes it."""
        cwd = record["cwd"]
        thread = _fill(
            self.template("thread") if template is None else template,
            {
                "id": record["id"],
                "sessionId": record["id"],
                "cwd": cwd,
                "preview": record["preview"],
                "createdAt": record["created_at"],
                "updatedAt": record["updated_at"],
                "recencyAt": record["updated_at"],
                "status": self.status(status),
                "path": record["path"],
                "turns": turns,
                "model": record["model"],
                "modelProvider": record["provider_id"],
                "cliVersion": self.profile.version,
                "originator": record["originator"],
                # A fork says what it was forked from wherever it is shown (measured on
                # 0.165.0 and 0.171.0: thread/resume and thread/read of a fork).
                "forkedFromId": record.get("forked_from"),
                **_effort(record),
            },
        )
        if thread.get("environments") is not None:
            thread["environments"] = [
                {"environmentId": "local", "cwd": cwd, "runtimeWorkspaceRoots": [cwd]}
            ]
        return thread

    def thread_response(self, template_name: str, thread: Any, record: dict[str, Any]) -> Any:
        template = self.template(template_name)
        # The thread's own policy (thread/start's, else the configuration's, else codex's
        # default), not the one of the home the template was captured in; a granular one
        # keeps the template's.
        policy = record.get("approval_policy")
        named = {"approvalPolicy": policy} if isinstance(policy, str) else {}
        return _fill(
            template,
            {
                **named,
                "thread": thread,
                "cwd": record["cwd"],
                "model": record["model"],
                "modelProvider": record["provider_id"],
                "runtimeWorkspaceRoots": [record["cwd"]],
                **_effort(record),
            },
        )

    def status(self, kind: str, *flags: str) -> Any:
        """A thread status; an active one with `flags` (e.g. waitingOnApproval)."""
        known = self.profile.wire.templates.get(f"status_{kind}")
        status = copy.deepcopy(known) if known is not None else {"type": kind}
        if flags and "activeFlags" in status:
            status["activeFlags"] = list(flags)
        return status

    def shown(self, turn: dict[str, Any], view: ItemsView) -> list[dict[str, Any]]:
        """The items a turn lists in `view`."""
        if view == "full":
            return list(turn["items"])
        if view == "notLoaded":
            return []
        listed = self.profile.turns.completed_turn_items.value
        answers = [i for i in turn["items"] if i["type"] == "agentMessage"]
        return answers[-1:] if listed is CompletedTurnItems.LAST_AGENT_MESSAGE else []

    def completed_view(self) -> ItemsView:
        """The `itemsView` of a completed turn's turn/completed, as the release's own
        (its template, where that is of a completed turn): 0.144.5 `notLoaded`, listing
        nothing; 0.150.0 and after `summary`."""
        template = self.profile.wire.templates.get("turn_completed")
        turn = template.get("turn") if isinstance(template, dict) else None
        view = turn.get("itemsView") if isinstance(turn, dict) else None
        if turn is None or turn.get("status") != "completed":
            return "summary"
        return view if view in ("notLoaded", "full") else "summary"

    def turn(self, turn: dict[str, Any], *, view: ItemsView) -> Any:
        base = self.template("turn_start")["turn"]
        items = [self.item(i) for i in self.shown(turn, view)]
        return _fill(
            base,
            {
                "id": turn["id"],
                "rootTurnId": turn["id"],
                "status": turn["status"],
                "items": items,
                "itemsView": view,
                "error": turn.get("error"),
                "startedAt": turn.get("started_at"),
                "completedAt": turn.get("completed_at"),
                "durationMs": turn.get("duration_ms"),
            },
        )

    def item(self, item: dict[str, Any]) -> Any:
        kind = item["type"]
        values: dict[str, Any] = {
            "id": item["id"],
            "startedAtMs": item.get("started_ms"),
            "completedAtMs": item.get("completed_ms"),
        }
        if kind == "userMessage":
            values["content"] = [{"type": "text", "text": item["text"], "text_elements": []}]
        elif kind == "agentMessage":
            values["text"] = item["text"]
        elif kind in ("reasoning", "commandExecution"):
            values.update({k: v for k, v in item.items() if not k.endswith("_ms")})
        return _fill(self.template(f"item_{kind}"), values)

    def error(self, message: str) -> Any:
        """A turn's error object as the release shapes it, saying `message`."""
        error = copy.deepcopy(self.template("error_notification")["error"])
        error["message"] = message
        return error

    def item_params(self, phase: str, item: dict[str, Any], thread_id: str, turn_id: str) -> Any:
        stamp = item.get("started_ms") if phase == "started" else item.get("completed_ms")
        return _fill(
            self.template(f"item_{phase}_params"),
            {
                "item": self.item(item),
                "threadId": thread_id,
                "turnId": turn_id,
                "startedAtMs": stamp,
                "completedAtMs": stamp,
                "contentTokenCount": None,
            },
        )

    def token_usage(
        self, thread_id: str, turn_id: str, input_tokens: int, output_tokens: int
    ) -> Any:
        params = copy.deepcopy(self.template("thread_tokenUsage_updated"))
        params["threadId"], params["turnId"] = thread_id, turn_id
        usage = params["tokenUsage"]
        for window in ("total", "last"):
            if window in usage:
                for key in list(usage[window]):
                    usage[window][key] = 0
                usage[window]["inputTokens"] = input_tokens
                usage[window]["outputTokens"] = output_tokens
                usage[window]["totalTokens"] = input_tokens + output_tokens
        return params
