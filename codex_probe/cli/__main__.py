"""`python -m codex_probe.cli`: the `codex-probe` command run by this Python."""

from __future__ import annotations

from codex_probe.cli.start import run

run()
