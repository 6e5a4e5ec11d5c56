"""What a person expects of the command line: --version, and a description on every help."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from importlib import metadata

from codex_probe.cli.commands.options import DeprecatedOption, DeprecatedPositional
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


def arguments(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.Action]]:
    """Every argument of every command and action under `parser`, with the command's name."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from arguments(sub, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction | argparse._VersionAction):
            yield path, action


def test_every_argument_of_every_command_says_what_it_is_in_its_help() -> None:
    found = list(arguments(build_parser(), "codex-probe"))
    assert len(found) > 100
    bare = [
        f"{command} {action.option_strings or action.dest}"
        for command, action in found
        # An old spelling is hidden on purpose; it says what to use when it is given.
        if not action.help and not isinstance(action, DeprecatedOption | DeprecatedPositional)
    ]
    assert bare == []


# What a command answers, it can print as one JSON object (`--json`); these only act.
ACTS_ONLY: set[str] = set()


def test_every_command_that_answers_something_has_json() -> None:
    found: dict[str, set[str]] = {}
    for command, action in arguments(build_parser(), "codex-probe"):
        found.setdefault(command, set()).update(action.option_strings)
    leaves = {c for c in found if not any(o.startswith(f"{c} ") for o in found)}
    lacking = sorted(c for c in leaves if "--json" not in found[c] and c not in ACTS_ONLY)
    assert lacking == []


# The one scheme: releases are --codex, --from and --to; no command takes one any other way.
RELEASE_OPTIONS = {"--codex", "--from", "--to", "--surface-base"}


def test_a_release_is_named_by_codex_from_or_to_in_every_command() -> None:
    for command, action in arguments(build_parser(), "codex-probe"):
        if isinstance(action, DeprecatedOption | DeprecatedPositional):
            continue
        if action.metavar in ("VERSION", "A", "B", "V1", "V2"):
            assert set(action.option_strings) & RELEASE_OPTIONS, (command, action)
