"""Runtimes and their prompt policies (spec 6.1).

Only codex is a split runtime: it takes instructions on thread/start and turn input
separately. claude and opencode take one prompt string and ignore instruction fields.
"""

from __future__ import annotations

from enum import StrEnum


class Runtime(StrEnum):
    CODEX = "codex"
    CLAUDE = "claude"
    OPENCODE = "opencode"


SPLIT_RUNTIMES: frozenset[Runtime] = frozenset({Runtime.CODEX})


class UnknownRuntimeError(ValueError):
    def __init__(self, name: str) -> None:
        known = ", ".join(runtime.value for runtime in Runtime)
        super().__init__(f"unknown runtime {name!r} (known runtimes: {known})")
        self.name = name


def parse_runtime(name: str | Runtime) -> Runtime:
    try:
        return Runtime(name)
    except ValueError:
        raise UnknownRuntimeError(str(name)) from None


def is_split_runtime(runtime: Runtime | str) -> bool:
    return parse_runtime(runtime) in SPLIT_RUNTIMES


def runtime_policy(runtime: Runtime | str) -> str:
    """The policy a session was created under, stored with it; a session is resumed only
    under the same policy, because a thread started with a one-string prompt holds its
    rules in turn history, not in instruction fields (spec 6.3)."""
    parsed = parse_runtime(runtime)
    mode = "split-instructions" if parsed in SPLIT_RUNTIMES else "full-prompt"
    return f"{parsed.value}:{mode}"
