"""What both console scripts (codex-probe, fake-codex) share on their command lines: the
exit codes every command documents, and a parser whose usage error is one line."""

from __future__ import annotations

import argparse
from typing import NoReturn

FAILED = 1
USAGE_ERROR = 2
NO_VERDICT = 3  # a run could not give a verdict (or the one it gave is incomplete)


class OneLineErrorParser(argparse.ArgumentParser):
    """A usage error is one line naming the problem, exit 2 (`--help` shows the usage).

    Subcommand parsers are made by this class too (argparse's default for subparsers).
    """

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: {message}\n")
