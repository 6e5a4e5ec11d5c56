"""The name and version of this tool, as verdicts and learned profiles record it."""

from __future__ import annotations

from codex_probe import __version__

TOOL = f"codex-probe {__version__}"
