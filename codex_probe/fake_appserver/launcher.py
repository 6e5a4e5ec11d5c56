"""A drop-in `codex` executable for the fake: a tiny script that runs fake-codex.

Programs that spawn `BINARY app-server ...` get the fake with a chosen profile and
script by being given this file as BINARY, without knowing the difference.

The script runs this Python isolated and without `site` (`-I -S`): the site step reads
every .pth file of the environment (an editable install's finder among them) before the
fake's first line, and the fake needs none of it. The folders it imports from are named
in the script instead: the fake's own and its one dependency's (msgspec), as found by
the Python that writes the launcher.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import sys
from pathlib import Path

import codex_probe

# What the fake imports from outside the standard library.
DEPENDENCIES = ("msgspec",)


def import_roots() -> list[str]:
    """The folders holding the fake's packages and its dependencies, each once."""
    packages = [Path(codex_probe.__file__ or "").parent]
    for name in DEPENDENCIES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise RuntimeError(f"the fake needs {name}, which this Python cannot import")
        packages.append(Path(spec.origin).parent)
    return list(dict.fromkeys(str(package.parent) for package in packages))


def write_launcher(folder: Path, *, profile: str, script: Path | None = None) -> Path:
    """Write `folder/codex` that execs the fake with `profile` (and `script`)."""
    folder.mkdir(parents=True, exist_ok=True)
    options = ["--profile", profile]
    if script is not None:
        options += ["--script", str(script.resolve())]
    program = (
        f"import sys; sys.path[:0] = {import_roots()!r}; "
        "from codex_probe.fake_appserver.cli import main; sys.exit(main())"
    )
    command = shlex.join([sys.executable, "-I", "-S", "-c", program, *options])
    launcher = folder / "codex"
    # Written aside and renamed: another process may be running the launcher right now.
    staging = folder / f".codex.{os.getpid()}"
    staging.write_text(f'#!/bin/sh\nexec {command} "$@"\n', encoding="utf-8")
    staging.chmod(0o755)
    os.replace(staging, launcher)
    return launcher
