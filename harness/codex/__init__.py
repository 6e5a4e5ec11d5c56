"""Real codex-cli versions: npm install into a cache, generated schema, validation."""

from harness.codex.install import (
    Installation,
    InstallError,
    UnknownVersionError,
    install,
    installed,
)
from harness.codex.npm import NpmError
from harness.codex.schema import ensure_schema, schema_hash
from harness.codex.transcripts import validate_transcript
from harness.codex.validator import MessageValidator, Violation
from harness.codex.versions import DEFAULT_CODEX_VERSION, DEFAULT_MATRIX, SPEC_CODEX_VERSION

__all__ = [
    "DEFAULT_CODEX_VERSION",
    "DEFAULT_MATRIX",
    "SPEC_CODEX_VERSION",
    "InstallError",
    "Installation",
    "MessageValidator",
    "NpmError",
    "UnknownVersionError",
    "Violation",
    "ensure_schema",
    "install",
    "installed",
    "schema_hash",
    "validate_transcript",
]
