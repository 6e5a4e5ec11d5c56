"""The model request a turn or a compaction sends, laid out as the profile says codex does.

History entries are `{"kind": context|user|assistant|summary, "item": <Responses item>}`;
the kind lets compaction keep what codex keeps (the real user messages) and drop the
rest. Instructions are effective values: `None` base means codex's built-in prompt,
`""` means none at all; `None` or `""` developer means no developer part.
"""

from __future__ import annotations

from typing import Any

from codex_probe.fake_appserver.profile import (
    COMPACT_BODY_KEYS,
    BaseOutcome,
    BasePlacement,
    ContextAfterCompaction,
    ContextPart,
    Profile,
    RemoteHistory,
)
from codex_probe.fake_appserver.surface_profile import MODEL_REQUEST_FIELDS

HistoryEntry = dict[str, Any]


def message(role: str, *texts: str) -> dict[str, Any]:
    part_type = "output_text" if role == "assistant" else "input_text"
    return {
        "type": "message",
        "role": role,
        "content": [{"type": part_type, "text": text} for text in texts],
    }


def normalize_base(profile: Profile, value: Any, present: bool) -> str | None:
    """What a base instruction param means: None = built-in prompt, "" = no base."""
    if not present or value is None:
        return _base_of(profile.behaviour.null_or_omitted_base.value)
    if value == "":
        return _base_of(profile.behaviour.empty_base.value)
    return str(value)


def _base_of(outcome: BaseOutcome) -> str | None:
    return None if outcome is BaseOutcome.DEFAULT_PROMPT else ""


def normalize_developer(value: Any) -> str | None:
    """What a developer instruction param means: None = no developer part.

    A profile can only say that "" leaves the part out (EmptyDeveloper.NO_DEVELOPER), so
    "", null and omitted all mean none.
    """
    return str(value) if value else None


def initial_context(profile: Profile, developer: str | None, cwd: str) -> list[HistoryEntry]:
    parts = {
        ContextPart.DEVELOPER: developer or "",
        ContextPart.SKILLS: profile.texts.skills,
        ContextPart.PERMISSIONS: profile.texts.permissions,
    }
    texts = [parts[part] for part in profile.behaviour.developer_context_parts.value if parts[part]]
    environment = (
        f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>"
    )
    return [
        {"kind": "context", "item": message("developer", *texts)},
        {"kind": "context", "item": message("user", environment)},
    ]


# codex offers its tools on every turn request and none on a compaction request. Of the
# tools 0.120.0 to 0.171.0 offer a model outside their catalog, the fake carries out
# `exec_command` (tool_calls.py), and offers it alone, its parameters cut to those it reads.
OFFERED_TOOL: dict[str, Any] = {
    "type": "function",
    "name": "exec_command",
    "description": "Runs a command in a PTY, returning output or a session ID for ongoing "
    "interaction.",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "cmd": {"type": "string", "description": "Shell command to execute."},
            "workdir": {"type": "string", "description": "Working directory for the command."},
            "yield_time_ms": {"type": "number", "description": "Wait before yielding output."},
            "sandbox_permissions": {
                "type": "string",
                "enum": ["use_default", "require_escalated"],
                "description": "Per-command sandbox override.",
            },
            "justification": {"type": "string", "description": "The approval question."},
        },
        "required": ["cmd"],
        "additionalProperties": False,
    },
}


def offered_tools(profile: Profile) -> list[dict[str, Any]]:
    """The tools a turn's request offers: the release's, by name (the fake carries out
    exec_command and offers the others as stand-ins), or exec_command alone."""
    surface = profile.document.surface
    if surface is None or surface.model_tools is None:
        return [OFFERED_TOOL]
    tools = []
    for name in surface.model_tools:
        if name == OFFERED_TOOL["name"]:
            tools.append(OFFERED_TOOL)
        elif name.startswith("<") and name.endswith(">"):
            tools.append({"type": name[1:-1]})
        else:
            tools.append({"type": "function", "name": name, **STAND_IN})
    return tools


# A tool the fake offers as the release does but never carries out.
STAND_IN: dict[str, Any] = {
    "description": "fake-codex offers this tool as the release does and cannot run it.",
    "strict": False,
    "parameters": {"type": "object", "properties": {}},
}


# The fields of a model request the fake builds itself; the release's others come from the
# wire template `model_request_fields`.
BUILT_FIELDS = (
    "model",
    "instructions",
    "input",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "store",
    "stream",
    "include",
    "prompt_cache_key",
)


def request_body(
    profile: Profile,
    *,
    model: str,
    thread_id: str,
    base: str | None,
    history: list[HistoryEntry],
    offer_tools: bool = True,
) -> dict[str, Any]:
    base_text = profile.texts.default_prompt if base is None else base
    prefix: list[dict[str, Any]] = []
    body: dict[str, Any] = {"model": model}
    if profile.behaviour.base_placement.value is BasePlacement.INSTRUCTIONS_FIELD:
        if base_text:
            body["instructions"] = base_text
    elif base_text:
        prefix.append(message("developer", base_text))
    body.update(
        {
            "input": prefix + [entry["item"] for entry in history],
            "tools": offered_tools(profile) if offer_tools else [],
            "tool_choice": "auto",
            "parallel_tool_calls": False,
            "store": False,
            "stream": True,
            "include": [],
            "prompt_cache_key": thread_id,
        }
    )
    # The release's other fields (client_metadata, reasoning...), as it sends them.
    extra = profile.wire.templates.get(MODEL_REQUEST_FIELDS)
    if isinstance(extra, dict):
        body.update({key: value for key, value in extra.items() if key not in body})
    return body


def compacted_history(
    profile: Profile,
    history: list[HistoryEntry],
    summary: str,
    developer: str | None,
    cwd: str,
) -> tuple[list[HistoryEntry], bool]:
    """The history after a compaction, and whether it holds the initial context."""
    users = [entry for entry in history if entry["kind"] == "user"]
    summary_entry = {
        "kind": "summary",
        "item": message("user", profile.texts.summary_prefix + summary),
    }
    after = profile.behaviour.compaction.value.initial_context_after
    if after is ContextAfterCompaction.BEFORE_LAST_USER_MESSAGE:
        context = initial_context(profile, developer, cwd)
        kept = users[:-1] + context + users[-1:] if users else context
        return [*kept, summary_entry], True
    return [*users, summary_entry], False


def remote_compaction_request(
    body: dict[str, Any], keys: list[str] | None = None
) -> dict[str, Any]:
    """The unary /responses/compact body: the turn request's fields the release sends
    there (`keys`; by default the model, input, instructions and tools, without the
    streaming and caching fields, as 0.120.0 does)."""
    keep = COMPACT_BODY_KEYS if keys is None else keys
    return {key: body[key] for key in keep if key in body}


def history_after_remote_compaction(
    profile: Profile, history: list[HistoryEntry], items: list[dict[str, Any]]
) -> tuple[list[HistoryEntry], bool]:
    """The history after a remote compaction, and whether it holds the initial context."""
    compaction = [{"kind": "compaction", "item": item} for item in items]
    after = profile.behaviour.remote_compaction.value.history_after
    if after is RemoteHistory.COMPACTION_ONLY:
        return compaction, False
    if after is RemoteHistory.USERS_THEN_COMPACTION:
        # The initial context is dropped and injected again by the next turn.
        return [entry for entry in history if entry["kind"] == "user"] + compaction, False
    kept = [entry for entry in history if entry["kind"] in ("context", "user")]
    return kept + compaction, True
