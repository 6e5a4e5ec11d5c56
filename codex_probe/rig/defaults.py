"""What the rig's callers name before they need the rig: the backend kinds and a session's
default deadline.

Imports nothing, so that the pytest plugin can offer them in its options (`--codex-backend`
choices, the `--codex-timeout` default) without loading the rig, aiohttp or jsonschema
into every pytest run of an environment with codex-probe installed.
"""

from __future__ import annotations

from typing import Literal

BackendKind = Literal["real", "fake"]
BACKEND_KINDS: tuple[BackendKind, ...] = ("real", "fake")

# The deadline of every request and awaited notification of a Session, in seconds.
DEFAULT_TIMEOUT = 30.0
