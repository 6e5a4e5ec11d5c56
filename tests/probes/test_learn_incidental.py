"""Learn's triggers of the notifications outside the lifecycle: what a request brings, not
where a notification happened to land."""

from __future__ import annotations

from typing import Any

from codex_probe.fake_appserver.surface_profile import STARTUP
from codex_probe.probes.domain.reading import View
from codex_probe.probes.releases.learn.surface import _incidental


def view(*said: tuple[str, str]) -> View:
    """A recorded run of requests sent and notifications received, in order."""
    transcript: list[Any] = []
    for number, (direction, method) in enumerate(said):
        message: dict[str, Any] = {"method": method, "params": {}}
        if direction == "send":
            message["id"] = number
        transcript.append([direction, message])
    return View({"steps": [], "model_requests": [], "received": [], "transcript": transcript})


def triggers(views: dict[str, View]) -> dict[str, list[str]]:
    found, _ = _incidental(views)
    by_method: dict[str, list[str]] = {}
    for notification in found:
        by_method.setdefault(notification.method, []).append(notification.trigger)
    return by_method


def test_a_notification_that_lands_after_a_later_request_by_chance_keeps_its_own_trigger() -> None:
    views = {
        # The goal is cleared by the resume, but came after the next turn/start twice.
        "resumed-1": view(("send", "thread/resume"), ("send", "turn/start"), ("recv", "goal")),
        "resumed-2": view(("send", "thread/resume"), ("send", "turn/start"), ("recv", "goal")),
        "resumed-3": view(("send", "thread/resume"), ("recv", "goal"), ("send", "turn/start")),
        "started": view(("send", "thread/start"), ("send", "turn/start")),
    }
    assert triggers(views) == {"goal": ["thread/resume"]}


def test_a_notification_two_requests_bring_has_both_triggers() -> None:
    views = {
        "resume": view(("send", "thread/resume"), ("recv", "notice")),
        "fork": view(("send", "thread/fork"), ("recv", "notice")),
        "start": view(("send", "thread/start")),
    }
    assert triggers(views) == {"notice": ["thread/fork", "thread/resume"]}


def test_one_after_an_initialize_comes_at_startup() -> None:
    views = {"s": view(("send", "initialize"), ("recv", "configWarning"), ("send", "turn/start"))}
    assert triggers(views) == {"configWarning": [STARTUP]}
