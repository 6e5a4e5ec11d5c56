"""Where the `codex-probe` process starts: nothing but the standard library is imported
before a Ctrl-C is caught, so one that lands while the command's modules load (seconds on
a loaded machine) ends it with one line and 130, as main() ends one later, never with a
traceback and death by SIGINT."""

from __future__ import annotations

import signal
import sys
from typing import NoReturn


def run() -> NoReturn:
    """The console script's entry point (and `python -m codex_probe.cli`'s)."""
    try:
        from codex_probe.cli.main import run as run_command
    except KeyboardInterrupt:
        words = sys.argv[1:2]
        command = f" {words[0]}" if words and not words[0].startswith("-") else ""
        print(f"codex-probe{command}: interrupted ({signal.SIGINT.name})", file=sys.stderr)
        sys.exit(128 + signal.SIGINT)
    run_command()
