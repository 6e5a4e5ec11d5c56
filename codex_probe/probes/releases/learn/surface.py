"""The `surface` section of a learned profile (codex_probe/fake_appserver/surface_profile.py) and
its wire templates, read off the release's surface (codex_probe/probes/domain/surface/) and, for the
values the surface keeps only as shapes, off the records it was read from: what the fake must send
as the release does for its surface to equal the real one's.

- the experimental field the handshake scenario asks for: refused without the
  experimentalApi capability and answered with it, the refusal becomes a template
  (`{method}`, `{field}`); answered both ways, nothing is gated;
- each notification outside the lifecycle, with its triggers: `startup` where one came
  right after an initialize was answered, else the requests after which it came that no
  scenario sends without getting it (see `_incidental`); its params (masked) become the
  template `notification:METHOD`;
- the tools and the body fields of a turn's model request (scenario start, turn-1): the
  tools by name, the fields the fake does not build with their values (masked);
- the answer to a read of a thread not loaded (scenario errors, read-unloaded), masked.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from codex_probe.fake_appserver.layout import BUILT_FIELDS
from codex_probe.fake_appserver.profile_model import ErrorAnswer
from codex_probe.fake_appserver.surface_profile import (
    MODEL_REQUEST_FIELDS,
    SENT_BY_THE_FAKE,
    STARTUP,
    THREAD_READ_UNLOADED,
    IncidentalNotification,
    SurfaceProfile,
    notification_template,
)
from codex_probe.probes.domain.reading import View
from codex_probe.probes.domain.surface.release import (
    EXPERIMENTAL_WITH,
    EXPERIMENTAL_WITHOUT,
    HANDSHAKE_SCENARIO,
    Surface,
    experimental_key,
)
from codex_probe.probes.domain.surface.wire import in_lifecycle
from codex_probe.probes.releases.learn.observed import Gap, Inexpressible
from codex_probe.probes.releases.learn.wire_capture import mask
from codex_probe.probes.runner.scenarios import EXPERIMENTAL_FIELD

EXPERIMENTAL_METHOD = "thread/start"
FIELD = "surface.experimental_refusal"
TURN_REQUEST = ("start", "turn-1")
UNLOADED_READ = ("errors", "read-unloaded")


def learn_surface(
    surface: Surface, views: dict[str, View]
) -> tuple[SurfaceProfile, dict[str, Any]]:
    """The section and its wire templates (Inexpressible when the handshake's experimental
    field cannot be told apart)."""
    fields, refusal = _experimental(surface)
    incidental, templates = _incidental(views)
    tools, request_fields = _model_request(surface, views)
    if request_fields is not None:
        templates[MODEL_REQUEST_FIELDS] = request_fields
    unloaded = _unloaded_read(views)
    if unloaded is not None:
        templates[THREAD_READ_UNLOADED] = unloaded
    section = SurfaceProfile(
        experimental_fields=fields,
        experimental_refusal=refusal,
        incidental_notifications=incidental,
        model_tools=tools,
    )
    return section, templates


def _experimental(surface: Surface) -> tuple[list[str], ErrorAnswer | None]:
    without = surface.value("initialize", experimental_key(EXPERIMENTAL_METHOD, False))
    declared = surface.value("initialize", experimental_key(EXPERIMENTAL_METHOD, True))
    if not isinstance(without, dict) or not isinstance(declared, dict):
        raise Inexpressible(
            Gap(FIELD, HANDSHAKE_SCENARIO, EXPERIMENTAL_WITHOUT, "no answer", "a measurement")
        )
    if "answered" in without:
        return [], None
    if "answered" not in declared:
        raise Inexpressible(
            Gap(
                FIELD,
                HANDSHAKE_SCENARIO,
                EXPERIMENTAL_WITH,
                f"{EXPERIMENTAL_METHOD}.{EXPERIMENTAL_FIELD} is refused with the capability too",
                "a field refused whatever the client declares",
            )
        )
    refused = without["refused"]
    message = str(refused.get("message")).replace("{", "{{").replace("}", "}}")
    if EXPERIMENTAL_FIELD not in message:
        raise Inexpressible(
            Gap(
                FIELD,
                HANDSHAKE_SCENARIO,
                EXPERIMENTAL_WITHOUT,
                f"the refusal {refused.get('message')!r} does not name the field",
                "a refusal template without {field}",
            )
        )
    message = message.replace(EXPERIMENTAL_FIELD, "{field}").replace(
        EXPERIMENTAL_METHOD, "{method}"
    )
    refusal = ErrorAnswer(code=int(refused["code"]), message=message)
    return [f"{EXPERIMENTAL_METHOD}.{EXPERIMENTAL_FIELD}"], refusal


def _incidental(
    views: dict[str, View],
) -> tuple[list[IncidentalNotification], dict[str, Any]]:
    """Each notification outside the lifecycle, its triggers and its first params.

    Where such a notification lands is codex's timing (a goal cleared after a resume may
    come after the next turn/start), so the request it came after is only a candidate: a
    trigger is kept only if every scenario that sends that request got the notification,
    the most common first, until every scenario that got it has one (else, the most
    common alone)."""
    after: dict[str, Counter[str]] = {}
    got: dict[str, set[str]] = {}  # method -> the scenarios it came in
    sends: dict[str, set[str]] = {}  # request method -> the scenarios that send it
    templates: dict[str, Any] = {}
    for name, view in views.items():
        last_sent = None
        for direction, message in view.transcript:
            if not isinstance(message, dict) or "method" not in message:
                continue
            method = str(message["method"])
            if direction == "send":
                if "id" in message:
                    last_sent = method
                    sends.setdefault(method, set()).add(name)
                continue
            if "id" in message or in_lifecycle(method) or method in SENT_BY_THE_FAKE:
                continue
            after.setdefault(method, Counter())[last_sent or STARTUP] += 1
            got.setdefault(method, set()).add(name)
            templates.setdefault(notification_template(method), mask(message.get("params")))
    found = []
    for method, triggers in after.items():
        for trigger in _triggers(triggers, got[method], sends):
            found.append(IncidentalNotification(method=method, trigger=trigger))
    return found, templates


def _triggers(seen_after: Counter[str], got: set[str], sends: dict[str, set[str]]) -> list[str]:
    if "initialize" in seen_after:
        return [STARTUP]
    chosen: list[str] = []
    covered: set[str] = set()
    for trigger, _ in seen_after.most_common():
        scenarios = sends.get(trigger, set())
        if scenarios <= got and not scenarios <= covered:
            chosen.append(trigger)
            covered |= scenarios
    return sorted(chosen) if covered >= got else [seen_after.most_common(1)[0][0]]


def _model_request(
    surface: Surface, views: dict[str, View]
) -> tuple[list[str] | None, dict[str, Any] | None]:
    scenario, label = TURN_REQUEST
    request = surface.value("model_requests", f"{scenario} {label} #0")
    view = views.get(scenario)
    if not isinstance(request, dict) or view is None or "tools" not in request:
        return None, None
    body = view.body(label)
    extra = {key: mask(body[key], key) for key in body if key not in BUILT_FIELDS}
    return list(request["tools"]), extra


def _unloaded_read(views: dict[str, View]) -> Any:
    scenario, label = UNLOADED_READ
    view = views.get(scenario)
    if view is None or label not in view.by_label:
        return None
    step = view.by_label[label]
    return mask(step["result"]) if isinstance(step.get("result"), dict) else None
