"""Infer each behaviour entry of a profile from the scenario observations.

Every inference reads the steps the probes already run, names them in its evidence, and
accepts only what the profile's value means to the fake: an observation that fits no
value raises a Gap naming it, so a maintainer learns which knob the fake lacks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codex_probe.fake_appserver.profile import (
    COMPACT_BODY_KEYS,
    BaseOutcome,
    BasePlacement,
    ColdResumeBase,
    ColdResumeDeveloper,
    Compaction,
    ContextAfterCompaction,
    ContextPart,
    EmptyDeveloper,
    ForkInstructions,
    LoadedResume,
    ModelSwitch,
    RemoteCompaction,
    RemoteHistory,
    RemoteRequest,
    SteerWhileAnswering,
    Unsubscribe,
)
from codex_probe.probes.domain.reading import (
    COMPACTION_PROMPT,
    COMPACTION_SUMMARY,
    DEFAULT_PROMPT,
    ENVIRONMENT,
    MODEL_SWITCH,
    PERMISSIONS,
    SKILLS,
)
from codex_probe.probes.releases.learn.observed import (
    Gap,
    Inexpressible,
    Inferred,
    ModelRequest,
    Observed,
)
from codex_probe.probes.releases.learn.turn_requests import (
    interrupt_without_turn,
    turn_start_while_active,
)
from codex_probe.rig.homes import OPENAI_PROVIDER_NAME


def _gap(field: str, request: ModelRequest, observed: str, missing: str) -> Inexpressible:
    return Inexpressible(Gap(field, request.scenario, request.step, observed, missing))


def _where(request: ModelRequest, marker_name: str) -> str:
    found = request.locate(marker_name)
    return ", ".join(place.describe() for place in found) or "nowhere"


def _has(request: ModelRequest, marker_name: str) -> bool:
    return bool(request.locate(marker_name))


def base_placement(seen: Observed) -> Inferred[BasePlacement]:
    field = "behaviour.base_placement"
    request = seen.request("start", "turn-1", field)
    found = request.locate("BASE-V1")
    if len(found) == 1 and found[0].field == "instructions":
        return Inferred(
            BasePlacement.INSTRUCTIONS_FIELD,
            "start turn-1: BASE-V1 is the top-level instructions field",
        )
    if (
        len(found) == 1
        and found[0].item == 0
        and found[0].role == "developer"
        and len(request.labels(0)) == 1
        and not request.instructions
    ):
        return Inferred(
            BasePlacement.DEVELOPER_MESSAGE_FIRST,
            "start turn-1: no top-level instructions; input[0] is a developer message "
            "holding only BASE-V1",
        )
    raise _gap(
        field,
        request,
        f"BASE-V1 at {_where(request, 'BASE-V1')} ({request.describe()})",
        "a base_placement value for this place",
    )


_PARTS = {
    "DEV-V1": ContextPart.DEVELOPER,
    SKILLS: ContextPart.SKILLS,
    PERMISSIONS: ContextPart.PERMISSIONS,
}


def developer_context_parts(seen: Observed) -> Inferred[list[ContextPart]]:
    field = "behaviour.developer_context_parts"
    request = seen.request("start", "turn-1", field)
    found = request.locate("DEV-V1")
    if len(found) != 1 or found[0].item is None or found[0].role != "developer":
        raise _gap(
            field,
            request,
            f"DEV-V1 at {_where(request, 'DEV-V1')}",
            "a place for developer instructions outside codex's developer context message",
        )
    labels = request.labels(found[0].item)
    parts = [_PARTS.get(label) for label in labels]
    if None in parts:
        unknown = [label for label, part in zip(labels, parts, strict=True) if part is None]
        raise _gap(
            field,
            request,
            f"input[{found[0].item}] holds the parts {labels}",
            f"a ContextPart for {', '.join(unknown)}",
        )
    ordered = [part for part in parts if part is not None]
    return Inferred(
        ordered,
        f"start turn-1: input[{found[0].item}] developer message parts = "
        + ", ".join(label for label in labels),
    )


def _base_outcome(request: ModelRequest, field: str) -> BaseOutcome:
    """What a thread/start without a usable base left the model: none, or codex's prompt."""
    default = request.find_label(DEFAULT_PROMPT)
    instructions = request.normalized["instructions"]
    if instructions == DEFAULT_PROMPT or default == (0, 0):
        return BaseOutcome.DEFAULT_PROMPT
    if default is None and instructions is None and request.labels(0)[:1] != ["text"]:
        return BaseOutcome.NO_BASE
    raise _gap(
        field,
        request,
        f"the request is {request.describe()}",
        "a BaseOutcome for this request",
    )


def empty_base(seen: Observed) -> Inferred[BaseOutcome]:
    field = "behaviour.empty_base"
    request = seen.request("start-empty", "turn-base-empty", field)
    outcome = _base_outcome(request, field)
    said = "codex's built-in prompt" if outcome is BaseOutcome.DEFAULT_PROMPT else "no base"
    return Inferred(outcome, f'start-empty turn-base-empty: baseInstructions "" gives {said}')


def null_or_omitted_base(seen: Observed) -> Inferred[BaseOutcome]:
    field = "behaviour.null_or_omitted_base"
    null = seen.request("start-empty", "turn-base-null", field)
    omitted = seen.request("start-empty", "turn-base-omitted", field)
    outcome, other = _base_outcome(null, field), _base_outcome(omitted, field)
    if outcome is not other:
        raise _gap(
            field,
            omitted,
            f"null gives {outcome.value}, omitted gives {other.value}",
            "separate values for a null and an omitted baseInstructions",
        )
    said = "codex's built-in prompt" if outcome is BaseOutcome.DEFAULT_PROMPT else "no base"
    return Inferred(
        outcome,
        f"start-empty turn-base-null and turn-base-omitted: both give {said}",
    )


def empty_developer(seen: Observed) -> Inferred[EmptyDeveloper]:
    field = "behaviour.empty_developer"
    expected: set[str] = {SKILLS, PERMISSIONS}
    for label in ("developer-empty", "developer-null", "developer-omitted"):
        request = seen.request("start-empty", f"turn-{label}", field)
        place = request.find_label(SKILLS) or request.find_label(PERMISSIONS)
        labels = set(request.labels(place[0])) if place else set()
        if labels - expected or _has(request, "DEV-E"):
            raise _gap(
                field,
                request,
                f"the developer context message holds {sorted(labels)}",
                "an EmptyDeveloper value that keeps a developer part",
            )
    return Inferred(
        EmptyDeveloper.NO_DEVELOPER,
        'start-empty turn-developer-empty (and -null, -omitted): developerInstructions "" '
        "leaves only codex's own parts in the developer context message",
    )


def loaded_resume(seen: Observed) -> Inferred[LoadedResume]:
    field = "behaviour.loaded_resume"
    after = seen.request("resume-loaded", "turn-2", field)
    compacted = seen.request("resume-loaded", "turn-3", field)
    seen_now = (_has(after, "BASE-V2"), _has(compacted, "DEV-V2"))
    if seen_now == (False, False) and _has(after, "BASE-V1") and _has(compacted, "DEV-V1"):
        return Inferred(
            LoadedResume.IGNORES_INSTRUCTIONS,
            "resume-loaded turn-2 and turn-3 (after compaction): base and developer stay V1 "
            "after thread/resume with V2 on the loaded thread",
        )
    if seen_now == (True, True):
        return Inferred(
            LoadedResume.APPLIES_INSTRUCTIONS,
            "resume-loaded turn-2: base V2 at once; turn-3 (after compaction): developer V2",
        )
    raise _gap(
        field,
        after,
        f"base at turn-2: {_versions(after, 'BASE')}; developer after compaction: "
        f"{_versions(compacted, 'DEV')}",
        "a LoadedResume value for this combination",
    )


def _versions(request: ModelRequest, kind: str) -> str:
    found = [tag for tag in ("V1", "V2", "V3") if _has(request, f"{kind}-{tag}")]
    return "+".join(found) or "none"


def cold_resume_base(seen: Observed) -> Inferred[ColdResumeBase]:
    field = "behaviour.cold_resume_base"
    resumed = seen.request("resume-cold", "turn-2", field)
    plain = seen.request("override-persistence", "turn-3", field)
    if _versions(resumed, "BASE") == "V2" and _versions(plain, "BASE") == "V1":
        return Inferred(
            ColdResumeBase.PARAM_ELSE_ORIGINAL,
            "resume-cold turn-2: base V2 from the resume after a restart; override-persistence "
            "turn-3: a resume without fields after another restart gives V1 back",
        )
    if _versions(resumed, "BASE") == "V1" and _versions(plain, "BASE") == "V1":
        return Inferred(
            ColdResumeBase.ORIGINAL,
            "resume-cold turn-2 and override-persistence turn-3: the base stays V1",
        )
    raise _gap(
        field,
        resumed,
        f"base after the resume: {_versions(resumed, 'BASE')}; after a plain resume: "
        f"{_versions(plain, 'BASE')} (override-persistence turn-3)",
        "a ColdResumeBase value for this combination (e.g. a durable override)",
    )


def cold_resume_developer(seen: Observed) -> Inferred[ColdResumeDeveloper]:
    field = "behaviour.cold_resume_developer"
    before = seen.request("resume-cold", "turn-2", field)
    after = seen.request("resume-cold", "turn-3", field)
    plain_after = seen.request("override-persistence", "turn-4", field)
    observed = (
        _versions(before, "DEV"),
        _versions(after, "DEV"),
        _versions(plain_after, "DEV"),
    )
    if observed == ("V1", "V2", "none"):
        return Inferred(
            ColdResumeDeveloper.PARAM_ON_REINJECTION,
            "resume-cold turn-2: the history keeps V1; turn-3 (after compaction): V2 from the "
            "resume; override-persistence turn-4: a resume without fields, after compaction, "
            "leaves no developer part",
        )
    if observed == ("V1", "V1", "V1"):
        return Inferred(
            ColdResumeDeveloper.ORIGINAL,
            "resume-cold turn-2 and turn-3 (after compaction), override-persistence turn-4: "
            "the developer instructions stay V1",
        )
    raise _gap(
        field,
        after,
        f"developer before compaction {observed[0]}, after {observed[1]}; after a plain "
        f"resume and compaction {observed[2]} (override-persistence turn-4)",
        "a ColdResumeDeveloper value for this combination",
    )


def compaction(seen: Observed) -> Inferred[Compaction]:
    field = "behaviour.compaction"
    requests = seen.requests("compaction", "compact", field)
    after = seen.request("compaction", "turn-3", field)
    asks = [r for r in requests if r.normalized["kind"] == "compaction"]
    if len(asks) != 1 or asks[0].find_label(COMPACTION_PROMPT) is None:
        shown = "; ".join(r.describe() for r in requests) or "no model request"
        raise _gap(
            field,
            after,
            f"thread/compact/start sent {shown}",
            "a local compaction other than one model request ending in codex's prompt",
        )
    labels = [after.labels(i) for i in range(len(after.items))]
    base = [["BASE-V1"]] if labels[:1] == [["BASE-V1"]] else []
    context = [_context_labels(after), [ENVIRONMENT]]
    summary = [[COMPACTION_SUMMARY]]
    layouts = {
        ContextAfterCompaction.BEFORE_LAST_USER_MESSAGE: [
            *base,
            ["USER-1"],
            *context,
            ["USER-2"],
            *summary,
            ["USER-3"],
        ],
        ContextAfterCompaction.NEXT_TURN: [
            *base,
            ["USER-1"],
            ["USER-2"],
            *summary,
            *context,
            ["USER-3"],
        ],
    }
    placement = next((value for value, layout in layouts.items() if layout == labels), None)
    if placement is None:
        raise _gap(
            field,
            after,
            f"the turn after compaction is {after.describe()}",
            "a ContextAfterCompaction value for this history",
        )
    notified = "thread/compacted" in seen.notifications("compaction", field)
    value = Compaction(
        tools=bool(asks[0].body.get("tools")),
        initial_context_after=placement,
        notifies_thread_compacted=notified,
    )
    return Inferred(
        value,
        f"compaction compact: one model request, tools {'offered' if value.tools else 'none'}, "
        f"codex's compaction prompt last; turn-3: {after.describe()}; "
        f"thread/compacted {'sent' if notified else 'not sent'}",
    )


def unsubscribe(seen: Observed) -> Inferred[Unsubscribe]:
    field = "behaviour.unsubscribe"
    step = seen.step("resume-unsubscribed", "unsubscribe", field)
    result: dict[str, Any] = step["result"] or {}
    if result.get("unloaded"):
        return Inferred(
            Unsubscribe.CLOSES_THREAD,
            "resume-unsubscribed unsubscribe: the thread left thread/loaded/list",
        )
    statuses = seen.statuses_from("resume-unsubscribed", "resume", field)
    if statuses[:1] == ["notLoaded"]:
        return Inferred(
            Unsubscribe.STAYS_LISTED_UNTIL_RESUME,
            "resume-unsubscribed unsubscribe: the thread stayed in thread/loaded/list; the "
            f"resume after it notified {', '.join(statuses)} (unloaded, then loaded again)",
        )
    if not statuses:
        return Inferred(
            Unsubscribe.STAYS_LOADED,
            "resume-unsubscribed unsubscribe: the thread stayed in thread/loaded/list and the "
            "resume after it notified no status change (the thread never left)",
        )
    request = seen.request("resume-unsubscribed", "turn-2", field)
    raise _gap(
        field,
        request,
        f"after unsubscribe the thread stayed listed; the resume notified {statuses}",
        "an Unsubscribe value for this resume",
    )


def steer_while_answering(seen: Observed) -> Inferred[SteerWhileAnswering]:
    field = "behaviour.steer_while_answering"
    request = seen.request("errors", "turn-2-done", field)
    found = request.locate("USER-STEER-RIGHT")
    if len(found) != 1 or found[0].item is None or found[0].item < 1:
        raise _gap(
            field,
            request,
            f"the steer is at {_where(request, 'USER-STEER-RIGHT')}",
            "a place for steered input other than the last user message",
        )
    before = request.labels(found[0].item - 1)
    if request.items[found[0].item - 1].get("role") == "assistant":
        return Inferred(
            SteerWhileAnswering.KEEPS_ANSWER_THEN_FOLLOW_UP,
            "errors turn-2-done: the held-back answer stays in the history before the steered "
            "input",
        )
    if before == ["USER-2"]:
        return Inferred(
            SteerWhileAnswering.ABANDONS_ANSWER_AND_RESTARTS,
            "errors turn-2-done: the pending answer is dropped; the request ends [USER-2, "
            "USER-STEER-RIGHT]",
        )
    raise _gap(
        field,
        request,
        f"before the steered input: {before}",
        "a SteerWhileAnswering value for this history",
    )


def remote_compaction(seen: Observed) -> Inferred[RemoteCompaction]:
    field = "behaviour.remote_compaction"
    requests = seen.requests("compaction-remote", "compact", field)
    after = seen.request("compaction-remote", "turn-2", field)
    if len(requests) != 1:
        raise _gap(
            field,
            after,
            f"thread/compact/start sent {len(requests)} requests",
            "a remote compaction of other than one request",
        )
    ask = requests[0]
    kinds = [item.get("type") for item in ask.items]
    if ask.path.endswith("/responses/compact"):
        request = RemoteRequest.COMPACT_ENDPOINT
    elif kinds and kinds[-1] == "compaction_trigger":
        request = RemoteRequest.COMPACTION_TRIGGER
    else:
        raise _gap(
            field,
            ask,
            f"for a provider named {OPENAI_PROVIDER_NAME} codex sent {ask.path}: {ask.describe()}",
            "a remote_compaction.request value for this request (or for none)",
        )
    history = _remote_history(after, field)
    keys = _compact_body_keys(ask) if request is RemoteRequest.COMPACT_ENDPOINT else None
    return Inferred(
        RemoteCompaction(
            provider_name=OPENAI_PROVIDER_NAME,
            request=request,
            history_after=history,
            compact_body_keys=keys,
        ),
        f"compaction-remote compact: {ask.path} ending in {kinds[-1] if kinds else 'nothing'}; "
        f"turn-2: {after.describe()}",
    )


def _compact_body_keys(ask: ModelRequest) -> list[str] | None:
    """The fields of a /responses/compact body, where they are not 0.120.0's (None)."""
    keys = sorted(ask.body)
    return None if keys == sorted(COMPACT_BODY_KEYS) else keys


def _remote_history(after: ModelRequest, field: str) -> RemoteHistory:
    """Which history codex kept, by the labels before the compaction item and after it."""
    kinds = [item.get("type") for item in after.items]
    if kinds.count("compaction") != 1:
        raise _gap(
            field,
            after,
            f"the turn after compaction is {after.describe()}",
            "a history after remote compaction without exactly one compaction item",
        )
    position = kinds.index("compaction")
    before = [after.labels(i) for i in range(position)]
    rest = [after.labels(i) for i in range(position + 1, len(kinds))]
    base = [["BASE-V1"]] if before[:1] == [["BASE-V1"]] else []
    context = [_context_labels(after), [ENVIRONMENT]]
    if before == base and rest == [*context, ["USER-2"]]:
        return RemoteHistory.COMPACTION_ONLY
    if before == [*base, ["USER-1"]] and rest == [*context, ["USER-2"]]:
        return RemoteHistory.USERS_THEN_COMPACTION
    if before == [*base, *context, ["USER-1"]] and rest == [["USER-2"]]:
        return RemoteHistory.CONTEXT_USERS_THEN_COMPACTION
    raise _gap(
        field,
        after,
        f"the turn after compaction is {after.describe()}",
        "a RemoteHistory value for this history",
    )


def _context_labels(request: ModelRequest) -> list[str]:
    """The labels of codex's developer context message in this request (none: empty)."""
    place = request.find_label(SKILLS) or request.find_label(PERMISSIONS)
    return [] if place is None else request.labels(place[0])


def fork(seen: Observed) -> Inferred[ForkInstructions]:
    field = "behaviour.fork"
    plain = seen.request("fork", "turn-fork-plain", field)
    forked = seen.request("fork", "turn-fork-new", field)
    kept = (_versions(plain, "BASE"), _versions(plain, "DEV"), _has(plain, "USER-1"))
    if kept != ("V1", "V1", True):
        raise _gap(
            field,
            plain,
            f"a fork without instructions sends base {kept[0]}, developer {kept[1]}"
            + ("" if kept[2] else ", without the parent's history"),
            "a fork that does not keep the parent's instructions and history",
        )
    observed = (_versions(forked, "BASE"), _versions(forked, "DEV"))
    values = {
        ("V2", "V1"): ForkInstructions.BASE_FROM_FORK_DEVELOPER_FROM_HISTORY,
        ("V2", "V2"): ForkInstructions.BOTH_FROM_FORK,
        ("V1", "V1"): ForkInstructions.PARENT_KEPT,
    }
    if observed not in values:
        raise _gap(
            field,
            forked,
            f"a fork given V2 instructions sends base {observed[0]}, developer {observed[1]}",
            "a ForkInstructions value for this combination",
        )
    return Inferred(
        values[observed],
        f"fork turn-fork-new: base {observed[0]}, developer {observed[1]} after thread/fork "
        "with V2 instructions; turn-fork-plain: V1 both, with the parent's history",
    )


def model_switch(seen: Observed) -> Inferred[ModelSwitch]:
    field = "behaviour.model_switch"
    before = seen.request("model-switch", "turn-1", field)
    after = seen.request("model-switch", "turn-2", field)
    labels = [after.labels(i) for i in range(len(after.items))]
    switch = [f"{MODEL_SWITCH}[BASE-V1]"]
    earlier = [before.labels(i) for i in range(len(before.items))]
    if labels == [*earlier, ["reply"], switch, ["USER-2"]]:
        return Inferred(
            ModelSwitch.BASE_IN_DEVELOPER_MESSAGE,
            f"model-switch turn-2: a developer message {switch[0]} before USER-2",
        )
    if labels == [*earlier, ["reply"], [*switch, PERMISSIONS], ["USER-2"]]:
        return Inferred(
            ModelSwitch.BASE_AND_PERMISSIONS_IN_DEVELOPER_MESSAGE,
            f"model-switch turn-2: a developer message {switch[0]}, {PERMISSIONS} before USER-2",
        )
    if labels == [*earlier, ["reply"], ["USER-2"]]:
        return Inferred(
            ModelSwitch.NOTHING,
            "model-switch turn-2: the history as before the switch, then USER-2",
        )
    raise _gap(
        field,
        after,
        f"after turn/start named another model: {after.describe()}",
        "a ModelSwitch value for this history",
    )


# The order of the profile's behaviour fields.
INFERENCES: dict[str, Callable[[Observed], Inferred[Any]]] = {
    "base_placement": base_placement,
    "developer_context_parts": developer_context_parts,
    "empty_base": empty_base,
    "null_or_omitted_base": null_or_omitted_base,
    "empty_developer": empty_developer,
    "loaded_resume": loaded_resume,
    "cold_resume_base": cold_resume_base,
    "cold_resume_developer": cold_resume_developer,
    "compaction": compaction,
    "unsubscribe": unsubscribe,
    "steer_while_answering": steer_while_answering,
    "remote_compaction": remote_compaction,
    "turn_start_while_active": turn_start_while_active,
    "interrupt_without_turn": interrupt_without_turn,
    "fork": fork,
    "model_switch": model_switch,
}
