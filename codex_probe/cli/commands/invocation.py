"""How a hint names codex-probe so that the line works where the user is.

`./nox -s probe` runs the command from the session's own venv, which is not on the user's
PATH: a hint saying `codex-probe report ...` would not run there. The running program is
named as the shell would find it: `codex-probe` when PATH leads to this very program, else
its path (relative to the working directory when it lies below it), else
`python -m codex_probe.cli` with this interpreter. Inside a nox session (nox sets
NOX_CURRENT_SESSION) the PATH is the session's, with its venv first, not the user's shell's:
the program is named by its path there.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

NAME = "codex-probe"
NOX_SESSION = "NOX_CURRENT_SESSION"


def invocation(
    argv0: str | None = None, path: str | None = None, env: Mapping[str, str] | None = None
) -> str:
    """What to type for codex-probe in a hint; `argv0`, `path` and `env` default to the
    process's."""
    given = os.environ if env is None else env
    program = Path(argv0 if argv0 is not None else sys.argv[0])
    on_path = shutil.which(NAME, path=path if path is not None else given.get("PATH"))
    if program.name == NAME and program.is_file():
        users_path = NOX_SESSION not in given
        if users_path and on_path is not None and Path(on_path).resolve() == program.resolve():
            return NAME
        return _shown(program)
    return f"{_shown(Path(sys.executable))} -m codex_probe.cli"


def _shown(program: Path) -> str:
    """A path as short as it can be and still run from here (./ for one in this folder)."""
    absolute = Path(os.path.abspath(program))  # not resolved: a venv's python is a link
    try:
        relative = absolute.relative_to(Path.cwd())
    except ValueError:
        return str(absolute)
    shown = relative.as_posix()
    return shown if "/" in shown else f"./{shown}"
