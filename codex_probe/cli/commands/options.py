"""Argument types and options the commands share, and the one scheme their names follow.

    --codex VERSION        the release a command works on (repeatable where it takes
                           several; default the default codex-cli)
    --from A --to B        two releases compared, or the ends of a range
    --out DIR              the folder a command writes (report: the run's folder)
    --history DIR          a history folder, as `codex-probe history` writes it
    --verdict FILE, --surfaces FILE, --baseline FILE   a file, named for what it holds
    --keep-installs N      how many codex-cli installs stay on disk
    --json                 the command's answer as one JSON object on stdout
    --jobs N               scenarios run at once

An older spelling keeps working and says so in one line on stderr (DeprecatedOption,
DeprecatedPositional); `--help` shows only the scheme's.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import CommandFailed
from codex_probe.fake_appserver.profile import ProfileError, load_profile
from codex_probe.harness.codex.versions import (
    DEFAULT_CODEX_VERSION,
    InvalidVersionError,
    checked_version_or_latest,
)
from codex_probe.harness.command_line import USAGE_ERROR
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


def add_codex_option(parser: Any, what: str = "the codex-cli release") -> None:
    """--codex VERSION, once: the release the command works on (default the default)."""
    parser.add_argument(
        "--codex",
        type=codex_version,
        default=DEFAULT_CODEX_VERSION,
        metavar="VERSION",
        help=f"{what}: a published version or 'latest' (default {DEFAULT_CODEX_VERSION})",
    )


def add_range_options(
    parser: Any,
    *,
    first: str,
    last: str,
    first_default: str | None = None,
    last_default: str | None = None,
) -> None:
    """--from A --to B (args.first, args.last): two releases, or the ends of a range.
    Without a default, one is required (`require_range` says so after the old spellings
    had their turn)."""
    parser.add_argument(
        "--from",
        dest="first",
        type=codex_version,
        default=first_default,
        metavar="VERSION",
        help=first,
    )
    parser.add_argument(
        "--to", dest="last", type=codex_version, default=last_default, metavar="VERSION", help=last
    )


def require_range(args: argparse.Namespace) -> tuple[str, str]:
    """args.first and args.last, both given (a usage error otherwise)."""
    absent = [name for name, value in (("--from", args.first), ("--to", args.last)) if not value]
    if absent:
        raise CommandFailed(
            f"the following arguments are required: {', '.join(absent)}", USAGE_ERROR
        )
    return args.first, args.last


def add_fake_profile_option(parser: Any) -> None:
    """--fake-profile FILE: the profile the fake imitates with --backend fake (a learned one,
    `codex-probe learn`, with its answer book beside it)."""
    parser.add_argument(
        "--fake-profile",
        type=Path,
        metavar="FILE",
        help="profile file for --backend fake, e.g. a learned VERSION.json (its answer book "
        "VERSION.book.json beside it is read too); default: the version's checked-in one",
    )


def versions_of_profile(asked: Sequence[str], profile: Path | None) -> list[str]:
    """The releases a command works on: those --codex asked for (default the default
    codex-cli), or with --fake-profile the release the profile imitates; a --codex that
    names another release is refused (ProfileError, as is a broken profile)."""
    if profile is None:
        return list(dict.fromkeys(asked or [DEFAULT_CODEX_VERSION]))
    imitated = load_profile(path=profile).version
    other = [version for version in asked if version != imitated]
    if other:
        raise ProfileError(
            f"--fake-profile {profile} imitates codex-cli {imitated}, not --codex {other[0]}"
            " (leave --codex out to use its release)"
        )
    return [imitated]


def add_json_option(parser: Any, what: str = "the answer") -> None:
    parser.add_argument(
        "--json", action="store_true", help=f"print {what} as one JSON object on stdout"
    )


def deprecated(command: str, old: str, new: str) -> None:
    """One line on stderr: an old spelling that still works, and the one to use."""
    print(f"codex-probe {command}: {old} is deprecated; use {new}", file=sys.stderr)


class DeprecatedOption(argparse.Action):
    """An option's old spelling: its value goes where the new spelling's does, and one line
    on stderr says so. Hidden from --help."""

    def __init__(
        self, option_strings: Sequence[str], dest: str, *, command: str, new: str, **kwargs: Any
    ) -> None:
        kwargs.setdefault("default", argparse.SUPPRESS)
        super().__init__(option_strings, dest, help=argparse.SUPPRESS, **kwargs)
        self.command, self.new = command, new

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        deprecated(self.command, str(option_string), self.new)
        setattr(namespace, self.dest, self.const if self.nargs == 0 else values)


class DeprecatedPositional(argparse.Action):
    """Releases once given as positional arguments (`diff A B`): each goes where its new
    option's value does (`dests`), and one line on stderr says so. Hidden from --help."""

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str,
        *,
        command: str,
        old: str,
        new: str,
        dests: tuple[str, ...],
        **kwargs: Any,
    ) -> None:
        super().__init__(
            option_strings,
            dest,
            nargs="*" if len(dests) > 1 else "?",
            default=argparse.SUPPRESS,
            help=argparse.SUPPRESS,
            **kwargs,
        )
        self.command, self.old, self.new, self.dests = command, old, new, dests

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given = [v for v in (values if isinstance(values, list) else [values]) if v is not None]
        if not given or given == [argparse.SUPPRESS]:
            return
        if len(given) != len(self.dests):
            parser.error(f"{self.old} takes {len(self.dests)} releases; use {self.new}")
        try:  # validated as the new spelling's are, before any path is built from them
            given = [checked_version_or_latest(str(value)) for value in given]
        except InvalidVersionError as error:
            parser.error(str(error))
        deprecated(self.command, self.old, self.new)
        for name, value in zip(self.dests, given, strict=True):
            setattr(namespace, name, value)


def add_jobs_option(parser: Any, what: str = "scenarios run at once") -> None:
    """--jobs N: how many scenarios run at once (default DEFAULT_JOBS)."""
    parser.add_argument(
        "--jobs",
        type=positive_int,
        default=DEFAULT_JOBS,
        metavar="N",
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


def add_old_version_positional(parser: Any, command: str) -> None:
    """`COMMAND VERSION`, the old spelling of `--codex VERSION`: still taken, one line says so."""
    parser.add_argument(
        "old_version",
        action=DeprecatedPositional,
        command=command,
        old="VERSION (positional)",
        new="--codex VERSION",
        dests=("codex",),
    )
