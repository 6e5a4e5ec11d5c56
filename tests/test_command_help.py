"""What a person expects of the command line: --version, and a description on every help."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from importlib import metadata

from codex_probe.cli.main import build_parser
from tests.cli import codex_probe


def test_version_prints_the_command_name_and_the_installed_version() -> None:
    done = codex_probe("--version", timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"codex-probe {metadata.version('codex-probe')}\n"
    assert re.fullmatch(r"codex-probe \d+\.\d+\.\d+\n", done.stdout), done.stdout


def commands(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, str | None]]:
    """Every command and action under `parser`, with the description its --help shows."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"{path} {name}", sub.description
                yield from commands(sub, f"{path} {name}")


def test_every_command_and_action_has_a_description_in_its_help() -> None:
    found = dict(commands(build_parser(), "codex-probe"))
    assert {"codex-probe smoke", "codex-probe cache list", "codex-probe history merge"} <= set(
        found
    )
    assert [command for command, description in found.items() if not description] == []
