"""How a command stops on a failed codex-cli install: one line on stderr, its exit code.

Every command that installs codex-cli wraps the install in `install_failures_end_command`;
the command's line is printed once, by `codex_probe.cli.main`, as
`codex-probe COMMAND: MESSAGE`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from codex_probe.harness.codex.install import InstallError, UnknownVersionError
from codex_probe.harness.codex.npm import NpmError

# What `harness.codex.install.install` raises when it cannot give a working codex-cli.
INSTALL_FAILURES = (UnknownVersionError, NpmError, InstallError)


class CommandFailed(Exception):
    """Ends the running command: its message is the line after `codex-probe COMMAND: `."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@contextmanager
def install_failures_end_command(
    exit_code: int, *, unknown_version_exit_code: int | None = None
) -> Iterator[None]:
    """Turn an install failure inside the block into CommandFailed with `exit_code`.

    Commands that count a version nobody published as a usage error (not a failed
    install) give that code as `unknown_version_exit_code`.
    """
    try:
        yield
    except UnknownVersionError as error:
        code = exit_code if unknown_version_exit_code is None else unknown_version_exit_code
        raise CommandFailed(str(error), code) from error
    except (NpmError, InstallError) as error:
        raise CommandFailed(str(error), exit_code) from error
