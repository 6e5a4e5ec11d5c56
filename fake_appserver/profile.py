"""A codex version's behaviour as data: `profiles/<version>.json` plus its wire templates.

Every behaviour entry says whether it was measured and on what evidence; the loader
refuses a profile that breaks this shape, naming the file and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator

from harness.codex.versions import DEFAULT_CODEX_VERSION, version_key

PROFILES_DIR = Path(__file__).parent / "profiles"


def _entry(value_schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["value", "measured", "evidence"],
        "additionalProperties": False,
        "properties": {
            "value": value_schema,
            "measured": {"type": "boolean"},
            "evidence": {"type": "string", "minLength": 1},
        },
    }


_PARTS = {"type": "array", "items": {"enum": ["developer", "skills", "permissions"]}}
_ERROR = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
}
ERROR_NAMES = (
    "not_initialized",
    "already_initialized",
    "unknown_method",
    "no_rollout",
    "invalid_thread_id",
    "thread_not_found",
    "no_active_turn",
    "wrong_active_turn",
)
PROFILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["version", "measured", "behaviour", "texts", "errors"],
    "properties": {
        "version": {"type": "string"},
        "measured": {
            "type": "object",
            "required": ["by", "on", "wire_templates"],
            "properties": {"wire_templates": {"type": "string"}},
        },
        "behaviour": {
            "type": "object",
            "additionalProperties": False,
            "required": [
                "base_placement",
                "developer_context_parts",
                "empty_base",
                "null_or_omitted_base",
                "empty_developer",
                "loaded_resume",
                "cold_resume_base",
                "cold_resume_developer",
                "compaction",
                "unsubscribe",
                "steer_while_answering",
                "remote_compaction",
            ],
            "properties": {
                "base_placement": _entry(
                    {"enum": ["instructions_field", "developer_message_first"]}
                ),
                "developer_context_parts": _entry(_PARTS),
                "empty_base": _entry({"enum": ["no_base", "default_prompt"]}),
                "null_or_omitted_base": _entry({"enum": ["default_prompt", "no_base"]}),
                "empty_developer": _entry({"enum": ["no_developer"]}),
                "loaded_resume": _entry({"enum": ["ignores_instructions", "applies_instructions"]}),
                "cold_resume_base": _entry({"enum": ["param_else_original", "original"]}),
                "cold_resume_developer": _entry({"enum": ["param_on_reinjection", "original"]}),
                "unsubscribe": _entry({"enum": ["closes_thread", "stays_listed_until_resume"]}),
                "steer_while_answering": _entry(
                    {"enum": ["keeps_answer_then_follow_up", "abandons_answer_and_restarts"]}
                ),
                "remote_compaction": _entry(
                    {
                        "type": "object",
                        "required": ["provider_name", "request", "history_after"],
                        "properties": {
                            "provider_name": {"type": "string"},
                            "request": {"enum": ["compaction_trigger", "compact_endpoint"]},
                            "history_after": {
                                "enum": ["context_users_then_compaction", "compaction_only"]
                            },
                        },
                    }
                ),
                "compaction": _entry(
                    {
                        "type": "object",
                        "required": ["model_request", "tools", "initial_context_after"],
                        "properties": {
                            "model_request": {"type": "boolean"},
                            "tools": {"type": "boolean"},
                            "initial_context_after": {
                                "enum": ["before_last_user_message", "next_turn"]
                            },
                        },
                    }
                ),
            },
        },
        "texts": {
            "type": "object",
            "required": [
                "default_prompt",
                "skills",
                "permissions",
                "compaction_prompt",
                "summary_prefix",
            ],
            "additionalProperties": {"type": "string"},
        },
        "errors": {
            "type": "object",
            "required": list(ERROR_NAMES),
            "additionalProperties": _ERROR,
        },
    },
}


class ProfileError(ValueError):
    """A profile file that is missing or does not have the profile's shape."""


@dataclass(frozen=True)
class Profile:
    version: str
    data: dict[str, Any]
    wire: dict[str, Any]
    path: Path

    def behaviour(self, name: str) -> Any:
        return self.data["behaviour"][name]["value"]

    def text(self, name: str) -> str:
        text: str = self.data["texts"][name]
        return text

    def error(self, name: str, **values: object) -> tuple[int, str]:
        entry = self.data["errors"][name]
        return int(entry["code"]), str(entry["message"]).format(**values)

    def template(self, name: str) -> Any:
        return self.wire["templates"][name]


def available_versions() -> list[str]:
    names = (p.stem for p in PROFILES_DIR.glob("*.json") if not p.stem.startswith("wire-"))
    return sorted(names, key=version_key)


def load_profile(version: str | None = None, *, path: Path | None = None) -> Profile:
    """The profile of `version` (default: the default codex version), or of a file."""
    if path is None:
        wanted = version or DEFAULT_CODEX_VERSION
        path = PROFILES_DIR / f"{wanted}.json"
        if not path.is_file():
            known = ", ".join(available_versions())
            raise ProfileError(
                f"fake-codex has no profile for codex-cli {wanted}; profiles: {known}"
            )
    data = _read_json(path)
    problems = sorted(Draft7Validator(PROFILE_SCHEMA).iter_errors(data), key=lambda e: e.path)
    if problems:
        where = ".".join(str(p) for p in problems[0].absolute_path) or "(top level)"
        raise ProfileError(f"{path}: at {where}: {problems[0].message}")
    wire_path = path.parent / data["measured"]["wire_templates"]
    wire = _read_json(wire_path)
    if not isinstance(wire.get("templates"), dict):
        raise ProfileError(f"{wire_path}: no 'templates' object")
    return Profile(version=data["version"], data=data, wire=wire, path=path)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ProfileError(f"{path}: cannot read: {error}") from None
    except json.JSONDecodeError as error:
        raise ProfileError(f"{path}:{error.lineno}:{error.colno}: not JSON: {error.msg}") from None
    if not isinstance(loaded, dict):
        raise ProfileError(f"{path}: the top level must be an object")
    return loaded
