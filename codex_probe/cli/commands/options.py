"""Argument types and options the commands share."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.versions import (
    DEFAULT_CODEX_VERSION,
    InvalidVersionError,
    checked_version_or_latest,
)
from codex_probe.probes.domain.surface.rules import Severity
from codex_probe.probes.runner.jobs import DEFAULT_JOBS

# Releases a history or bisect run keeps installed at once (each is ~424 MB).
DEFAULT_KEEP_INSTALLS = 3


def _whole_number(text: str, least: int, too_small: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(too_small.format(value=value))
    return value


def positive_int(text: str) -> int:
    """A whole number of 1 or more (argparse type): jobs, repeats, kept installs."""
    return _whole_number(text, 1, "{value} is less than 1")


def non_negative_int(text: str) -> int:
    """A whole number of 0 or more (argparse type)."""
    return _whole_number(text, 0, "{value} is negative; give 0 or more")


def codex_version(text: str) -> str:
    """A codex-cli version or `latest` (argparse type): anything else is a usage error,
    refused before any path is built from it."""
    try:
        return checked_version_or_latest(text)
    except InvalidVersionError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_codex_versions_option(parser: Any) -> None:
    """--codex VERSION, repeatable: the codex-cli releases to run (args.codex: a list, empty
    when none is given, which means DEFAULT_CODEX_VERSION)."""
    parser.add_argument(
        "--codex",
        type=codex_version,
        action="append",
        default=[],
        metavar="VERSION",
        help=f"codex-cli version (repeatable; default {DEFAULT_CODEX_VERSION})",
    )


def add_jobs_option(parser: Any, what: str = "scenarios run at once") -> None:
    """--jobs N: how many scenarios run at once (default DEFAULT_JOBS)."""
    parser.add_argument(
        "--jobs",
        type=positive_int,
        default=DEFAULT_JOBS,
        help=f"{what} (default {DEFAULT_JOBS})",
    )


def add_keep_installs_option(parser: Any) -> None:
    """--keep-installs N: how many of the installs a run makes stay on disk at once."""
    parser.add_argument(
        "--keep-installs",
        type=positive_int,
        default=DEFAULT_KEEP_INSTALLS,
        metavar="N",
        help="installs this run keeps on disk at once; older ones it made are removed "
        f"(default {DEFAULT_KEEP_INSTALLS}; installs made before the run are never removed)",
    )


def severity(text: str) -> Severity:
    """ERR, WARN or INFO (argparse type)."""
    try:
        return Severity.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_severity_levels_option(parser: Any) -> None:
    """--severity-levels FILE: a project's severity for some rules (`RULE-ID LEVEL` lines)."""
    parser.add_argument(
        "--severity-levels",
        type=Path,
        metavar="FILE",
        help="raise or lower rules: lines of `RULE-ID ERR|WARN|INFO` (# comments); "
        "`codex-probe rules` lists the ids",
    )
