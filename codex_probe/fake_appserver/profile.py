"""A codex version's behaviour as typed data: `profiles/<version>.json` plus its wire templates.

The profile is a model (msgspec structs and enums); its JSON schema is generated from the
model (`python -m codex_probe.fake_appserver.profile` prints it), and a file is decoded into
the model or refused with the file and the field named. Code reads fields, never strings: a value
the model does not know, or a field the fake reads but the file lacks, fails at load time,
never at the first compaction.

Every behaviour entry says whether it was measured and on what evidence.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import msgspec

from codex_probe.fake_appserver.answer_book import (
    AnswerBook,
    AnswerBookError,
    book_path,
    is_book_name,
    load_book,
)
from codex_probe.fake_appserver.json_files import FileRefused, decode_file, model_schema
from codex_probe.fake_appserver.profile_model import ErrorAnswer, Evidence, Measured, Model
from codex_probe.fake_appserver.surface_profile import SurfaceProfile
from codex_probe.fake_appserver.turn_profile import TURN_TEMPLATES, Turns, lent
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION, VERSION_PATTERN, version_key
from codex_probe.harness.files import inside

PROFILES_DIR = Path(__file__).resolve().parent / "profiles"
SCHEMA_FILE = PROFILES_DIR / "profile.schema.json"

# Names other modules import from here.
__all__ = ["ErrorAnswer", "Evidence", "Measured", "Model", "SurfaceProfile", "Turns"]


class BasePlacement(StrEnum):
    """Where the effective base instructions reach the model."""

    INSTRUCTIONS_FIELD = "instructions_field"  # the request's top-level `instructions`
    DEVELOPER_MESSAGE_FIRST = "developer_message_first"  # input[0], a developer message


class ContextPart(StrEnum):
    """The parts of the developer message of codex's initial context."""

    DEVELOPER = "developer"
    SKILLS = "skills"
    PERMISSIONS = "permissions"


class BaseOutcome(StrEnum):
    """What an empty, null or omitted baseInstructions on thread/start leaves the model."""

    NO_BASE = "no_base"
    DEFAULT_PROMPT = "default_prompt"  # codex's built-in prompt


class EmptyDeveloper(StrEnum):
    """What developerInstructions "" on thread/start leaves the model."""

    NO_DEVELOPER = "no_developer"  # the developer part is left out


class LoadedResume(StrEnum):
    """What thread/resume with new instructions does to a thread still loaded."""

    IGNORES_INSTRUCTIONS = "ignores_instructions"
    APPLIES_INSTRUCTIONS = "applies_instructions"


class ColdResumeBase(StrEnum):
    """The base of a thread resumed in a new process (or after unsubscribe)."""

    PARAM_ELSE_ORIGINAL = "param_else_original"  # the resume's value, else thread/start's
    ORIGINAL = "original"


class ColdResumeDeveloper(StrEnum):
    """The developer instructions of a thread resumed in a new process."""

    # The resume's value (none if absent) once the initial context is injected again.
    PARAM_ON_REINJECTION = "param_on_reinjection"
    ORIGINAL = "original"


class Unsubscribe(StrEnum):
    """What thread/unsubscribe of the last subscriber does to a loaded thread."""

    CLOSES_THREAD = "closes_thread"  # unloaded at once: notLoaded, thread/closed (0.120.0)
    # Still listed; the next resume unloads it (notLoaded, idle) and resumes it cold (0.171.0).
    STAYS_LISTED_UNTIL_RESUME = "stays_listed_until_resume"
    # Still loaded: a resume acts on it as on any loaded thread (0.121.0 to 0.134.0).
    STAYS_LOADED = "stays_loaded"


class SteerWhileAnswering(StrEnum):
    KEEPS_ANSWER_THEN_FOLLOW_UP = "keeps_answer_then_follow_up"
    ABANDONS_ANSWER_AND_RESTARTS = "abandons_answer_and_restarts"


class TurnStartWhileActive(StrEnum):
    """What a turn/start does while a turn of the thread is active.

    Measured on both: no second turn starts; the input joins the active turn as steered
    input does (steer_while_answering says what happens to the pending answer).
    """

    JOINS_ACTIVE_TURN = "joins_active_turn"  # the answer names the active turn (0.171.0)
    # The answer names a new inProgress turn that never starts nor completes (0.120.0).
    JOINS_ACTIVE_TURN_ANSWERING_A_NEW_ID = "joins_active_turn_answering_a_new_id"


class InterruptWithoutTurn(StrEnum):
    """What turn/interrupt does on a thread with no active turn."""

    REFUSED = "refused"  # answered with errors.no_active_turn_to_interrupt (0.171.0)
    # Not answered until a later turn of the thread is interrupted; then {} (0.120.0).
    HELD_UNTIL_A_TURN_IS_INTERRUPTED = "held_until_a_turn_is_interrupted"


class ForkInstructions(StrEnum):
    """Which instructions thread/fork gives the fork when it names new ones (without any,
    the fork keeps the parent's: its base, and its history, whose initial context holds
    the developer instructions)."""

    # The fork's base instructions; the developer instructions of the history it copied
    # (0.120.0 to 0.171.0: openai/codex#19045).
    BASE_FROM_FORK_DEVELOPER_FROM_HISTORY = "base_from_fork_developer_from_history"
    BOTH_FROM_FORK = "both_from_fork"  # the developer part of its context replaced too
    PARENT_KEPT = "parent_kept"  # neither: the fork is the parent's, instructions and all


class ModelSwitch(StrEnum):
    """What codex adds to the history when a turn/start names another model."""

    # A developer message before the turn's user message: texts.model_switch holding the
    # thread's base instructions (0.120.0 to 0.171.0: openai/codex#41491).
    BASE_IN_DEVELOPER_MESSAGE = "base_in_developer_message"
    # The same message with the permissions text again after it (0.144.x, a history
    # measured on 0.144.5: `codex:model_switch[BASE-V1], codex:permissions`).
    BASE_AND_PERMISSIONS_IN_DEVELOPER_MESSAGE = "base_and_permissions_in_developer_message"
    NOTHING = "nothing"


class ContextAfterCompaction(StrEnum):
    """Where codex puts its initial context again after a local compaction."""

    BEFORE_LAST_USER_MESSAGE = "before_last_user_message"  # in the compacted history
    NEXT_TURN = "next_turn"  # injected by the next turn, after the summary


class RemoteRequest(StrEnum):
    COMPACTION_TRIGGER = "compaction_trigger"  # POST /responses ending in a trigger item
    COMPACT_ENDPOINT = "compact_endpoint"  # POST /responses/compact


class RemoteHistory(StrEnum):
    """The history after a remote compaction (the next turn adds what is not kept)."""

    CONTEXT_USERS_THEN_COMPACTION = "context_users_then_compaction"
    USERS_THEN_COMPACTION = "users_then_compaction"  # context injected again next turn
    COMPACTION_ONLY = "compaction_only"


class Compaction(Model, frozen=True):
    """A local compaction (thread/compact/start on a provider codex compacts locally for)."""

    tools: bool  # the compaction request offers tools
    initial_context_after: ContextAfterCompaction
    notifies_thread_compacted: bool


# The fields of the /responses/compact body measured on 0.120.0 (RemoteCompaction's default).
COMPACT_BODY_KEYS = ("model", "input", "instructions", "tools", "parallel_tool_calls")


class RemoteCompaction(Model, frozen=True):
    """The compaction codex runs remotely for a provider of this name."""

    provider_name: str
    request: RemoteRequest
    history_after: RemoteHistory
    # The top-level fields of the /responses/compact body (compact_endpoint), taken from
    # the turn request's; None: those measured on 0.120.0 (model, input, instructions,
    # tools, parallel_tool_calls). 0.133.0 sends prompt_cache_key too.
    compact_body_keys: list[str] | None = None


class Behaviour(Model, frozen=True):
    base_placement: Measured[BasePlacement]
    developer_context_parts: Measured[list[ContextPart]]
    empty_base: Measured[BaseOutcome]
    null_or_omitted_base: Measured[BaseOutcome]
    empty_developer: Measured[EmptyDeveloper]
    loaded_resume: Measured[LoadedResume]
    cold_resume_base: Measured[ColdResumeBase]
    cold_resume_developer: Measured[ColdResumeDeveloper]
    compaction: Measured[Compaction]
    unsubscribe: Measured[Unsubscribe]
    steer_while_answering: Measured[SteerWhileAnswering]
    remote_compaction: Measured[RemoteCompaction]
    turn_start_while_active: Measured[TurnStartWhileActive]
    interrupt_without_turn: Measured[InterruptWithoutTurn]
    fork: Measured[ForkInstructions]
    model_switch: Measured[ModelSwitch]


class Texts(Model, frozen=True):
    """codex's own texts (long ones as stand-ins that open with the same words)."""

    default_prompt: str
    skills: str
    permissions: str
    compaction_prompt: str
    summary_prefix: str
    # The developer message of a model switch (behaviour.model_switch), a str.format
    # template: {instructions} is the thread's base instructions.
    model_switch: str


class Errors(Model, frozen=True):
    not_initialized: ErrorAnswer
    already_initialized: ErrorAnswer
    unknown_method: ErrorAnswer  # {method}
    no_rollout: ErrorAnswer  # {thread_id}
    invalid_thread_id: ErrorAnswer  # {char}, {position}
    thread_not_found: ErrorAnswer  # {thread_id}
    no_active_turn: ErrorAnswer
    wrong_active_turn: ErrorAnswer  # {expected}, {actual}
    steer_without_expected_turn: ErrorAnswer  # turn/steer lacking expectedTurnId
    turns_before_first_turn: ErrorAnswer  # thread/read includeTurns; {thread_id} if named
    # None where codex never refuses it (behaviour.interrupt_without_turn says what it does).
    no_active_turn_to_interrupt: ErrorAnswer | None
    # The fake's own refusals of input it cannot imitate codex on. No scenario sends codex
    # such input, so these are never measured, and their entries say so.
    turn_without_text: Measured[ErrorAnswer]  # turn/start whose input has no text part
    # No longer read: codex answers no line that is no JSON-RPC message (measured on 0.120.0
    # and 0.171.0: it logs it and reads on), nor does the fake. Kept so that profiles
    # learned before still load.
    unreadable_line: Measured[ErrorAnswer] | None = None


class Provenance(Model, frozen=True):
    by: str
    on: str
    wire_templates: str  # the wire file, relative to the profile file


class ProfileDocument(Model, frozen=True):
    # A release's version: it names files and folders (a transcript, a run's folder).
    version: Annotated[str, msgspec.Meta(pattern=VERSION_PATTERN)]
    measured: Provenance
    behaviour: Behaviour
    texts: Texts
    errors: Errors
    # Real turns (tool calls, reasoning, failed streams): turn_profile.py. None in a
    # learned profile until learn infers it; the nearest checked-in profile lends it.
    turns: Turns | None = None
    # What learn takes from the release's surface (surface_profile.py). None in a profile
    # learned before it was: the fake then gates nothing behind experimentalApi.
    surface: SurfaceProfile | None = None

    def __post_init__(self) -> None:
        # msgspec reports a ValueError here as a validation error of the file.
        refuses = self.behaviour.interrupt_without_turn.value is InterruptWithoutTurn.REFUSED
        if refuses and self.errors.no_active_turn_to_interrupt is None:
            raise ValueError(
                "behaviour.interrupt_without_turn is refused, but "
                "errors.no_active_turn_to_interrupt is null"
            )


class WireDocument(msgspec.Struct, frozen=True):
    captured_from: str
    source: str
    templates: dict[str, Any]


# The templates the fake builds its messages from (codex_probe/fake_appserver/wire.py).
REQUIRED_TEMPLATES = (
    "initialize",
    "thread",
    "thread_start",
    "thread_resume",
    "turn_start",
    "compact_start",
    "unsubscribe",
    "item_userMessage",
    "item_agentMessage",
    "item_contextCompaction",
    "item_started_params",
    "item_completed_params",
    "status_active",
    "status_idle",
    "status_notLoaded",
    "thread_tokenUsage_updated",
    "notifications_carry_emitted_at_ms",
)


class ProfileError(FileRefused):
    """A profile file that is missing or does not have the profile's shape."""


class Profile(msgspec.Struct, frozen=True):
    """A loaded profile: the document, its wire templates, and where it came from.

    A profile without the `turns` section or its templates borrows them from `lender`,
    the nearest checked-in profile (closest below its version first).
    """

    document: ProfileDocument
    wire: WireDocument
    path: Path
    lender: Profile | None = None
    # What the release answered to every method of its schema (answer_book.py), when the
    # profile was learned with an exploration: VERSION.book.json beside it.
    book: AnswerBook | None = None

    @property
    def version(self) -> str:
        return self.document.version

    @property
    def behaviour(self) -> Behaviour:
        return self.document.behaviour

    @property
    def texts(self) -> Texts:
        return self.document.texts

    @property
    def errors(self) -> Errors:
        return self.document.errors

    @property
    def turns(self) -> Turns:
        if self.document.turns is not None:
            return self.document.turns
        if self.lender is None:
            raise ProfileError(f"{self.path}: no turns section, and no profile lends one")
        return lent(self.lender.turns, self.lender.version)

    @property
    def checked_in(self) -> bool:
        return self.path.resolve().parent == PROFILES_DIR.resolve()

    def template(self, name: str) -> Any:
        if name not in self.wire.templates and name in TURN_TEMPLATES and self.lender:
            return self.lender.template(name)
        return self.wire.templates[name]


def available_versions() -> list[str]:
    names = (p.stem for p in PROFILES_DIR.glob("*.json") if _is_profile_name(p.name))
    return sorted(names, key=version_key)


def _is_profile_name(name: str) -> bool:
    return (
        not name.startswith("wire-")
        and not name.endswith(".schema.json")
        and not is_book_name(name)
    )


def checked_in_path(version: str) -> Path | None:
    """The checked-in profile file of `version`, if the repository has one."""
    path = inside(PROFILES_DIR, f"{version}.json")
    return path if path.is_file() else None


def profile_for(
    version: str,
    *,
    given: Path | None = None,
    learned_in: Path | None = None,
    checked_in: bool = True,
) -> Path | None:
    """THE answer to which profile file the fake imitates codex-cli `version` with: the one
    a user `given`, else the one learned for it in the folder `learned_in` (a history's
    release folder keeps what its run learned), else (unless `checked_in` is false) the
    repository's; None when it has none and one must be learned."""
    if given is not None:
        return given
    if learned_in is not None and (learned := inside(learned_in, f"{version}.json")).is_file():
        return learned
    return checked_in_path(version) if checked_in else None


def nearest_checked_in_versions(version: str) -> list[str]:
    """The versions with a checked-in profile, the closest below `version` first (the
    nearest in each part of the version number), then those above it."""
    key = version_key(version)

    def nearness(candidate: str) -> tuple[bool, list[int]]:
        pairs = zip(version_key(candidate), key, strict=False)
        return version_key(candidate) > key, [abs(a - b) for a, b in pairs]

    return sorted(available_versions(), key=nearness)


def is_profile_path(spec: str) -> bool:
    """Whether a --profile value names a file rather than a version."""
    return spec.endswith(".json") or "/" in spec


def resolve_profile(spec: str | None) -> Profile:
    """The profile a --profile value names: a version (checked in) or a profile file."""
    if spec is not None and is_profile_path(spec):
        return load_profile(path=Path(spec))
    return load_profile(spec)


def load_profile(version: str | None = None, *, path: Path | None = None) -> Profile:
    """The profile of `version` (default: the default codex version), or of a file."""
    if path is None:
        wanted = version or DEFAULT_CODEX_VERSION
        found = profile_for(wanted)
        if found is None:
            known = ", ".join(available_versions())
            raise ProfileError(
                f"fake-codex has no profile for codex-cli {wanted}; profiles: {known} "
                "(or give a learned profile file: codex-probe learn --codex VERSION)"
            )
        path = found
    profile = _read(path)
    if profile.document.turns is None or _lacks_turn_templates(profile.wire):
        profile = msgspec.structs.replace(profile, lender=_lender(profile.version, path))
    return profile


def _read(path: Path) -> Profile:
    """A profile file, its wire file and its answer book if it has one, as they are
    (nothing lent)."""
    document = decode_file(path, ProfileDocument, ProfileError)
    wire_path = path.parent / document.measured.wire_templates
    wire = decode_file(wire_path, WireDocument, ProfileError)
    missing = [name for name in REQUIRED_TEMPLATES if name not in wire.templates]
    if missing:
        raise ProfileError(f"{wire_path}: no template {', '.join(missing)}")
    book = None
    if (beside := book_path(path)).is_file():
        try:
            book = load_book(beside)
        except AnswerBookError as error:
            raise ProfileError(str(error)) from None
    return Profile(document=document, wire=wire, path=path, book=book)


def _lacks_turn_templates(wire: WireDocument) -> bool:
    return any(name not in wire.templates for name in TURN_TEMPLATES)


def _lender(version: str, path: Path) -> Profile:
    """The checked-in profile that lends a profile what it lacks of the turns section:
    the closest below `version` that has it all, else the closest above."""
    candidates = nearest_checked_in_versions(version)
    for candidate in (v for v in candidates if checked_in_path(v) != path.resolve()):
        found = checked_in_path(candidate)
        assert found is not None  # available_versions lists checked-in files only
        lender = _read(found)
        if lender.document.turns is not None and not _lacks_turn_templates(lender.wire):
            return lender
    raise ProfileError(f"{path}: no turns section, and no checked-in profile has one")


def encode_document(document: ProfileDocument) -> str:
    """A profile as the JSON file a person reviews: indented, in the model's field order."""
    return json.dumps(msgspec.to_builtins(document), indent=2, ensure_ascii=False) + "\n"


def profile_schema() -> dict[str, Any]:
    """The JSON schema of a profile file, generated from the model."""
    return model_schema(ProfileDocument)


def schema_text() -> str:
    return json.dumps(profile_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    # Imported by name: run as __main__, the model's titles would name __main__.
    from codex_probe.fake_appserver.profile import schema_text as named_schema_text

    sys.stdout.write(named_schema_text())
