"""The name and version of this tool, as verdicts and learned profiles record it."""

from __future__ import annotations

from importlib import metadata


def _version() -> str:
    try:
        return metadata.version("codex-probe")
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        return "0+unknown"


TOOL = f"codex-probe {_version()}"
