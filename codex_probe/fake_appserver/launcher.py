"""A drop-in `codex` executable for the fake: a tiny script that runs fake-codex.

Programs that spawn `BINARY app-server ...` get the fake with a chosen profile and
script by being given this file as BINARY, without knowing the difference.

The script runs this Python isolated and without `site` (`-I -S`): the site step reads
every .pth file of the environment (an editable install's finder among them) before the
fake's first line, and the fake needs none of it. The folders it imports from are named
in the script instead: the fake's own and its one dependency's (msgspec), as found by
the Python that writes the launcher.

codex-probe's own starts of the fake skip the launcher where they can (`warm_fake`): a warm
copy that has imported the fake forks for each start, with the launcher's options, at a
tenth of the CPU (harness/forks/client.py).
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shlex
import sys
import threading
from pathlib import Path

import codex_probe
from codex_probe.harness.forks.client import ForkServer
from codex_probe.harness.forks.client import available as forks_available

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


def launcher_options(*, profile: str, script: Path | None = None) -> list[str]:
    """What the launcher puts before the arguments it is given."""
    options = ["--profile", profile]
    if script is not None:
        options += ["--script", str(script.resolve())]
    return options


def write_launcher(folder: Path, *, profile: str, script: Path | None = None) -> Path:
    """Write `folder/codex` that execs the fake with `profile` (and `script`)."""
    folder.mkdir(parents=True, exist_ok=True)
    options = launcher_options(profile=profile, script=script)
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


# The fake's own modules that its start would otherwise import (cli.py puts the server off
# until initialize is answered; a warm copy has them all).
_WARM_IMPORTS = ("codex_probe.fake_appserver.cli", "codex_probe.fake_appserver.server")
_warm_lock = threading.Lock()
_warm: ForkServer | None = None


def warm_fake() -> ForkServer | None:
    """This process's warm fake (harness/forks): what the launcher runs, imported once and
    forked per start. None where the host cannot fork one (then the launcher is exec'd)."""
    global _warm
    with _warm_lock:
        if _warm is None and forks_available():
            entry = "codex_probe.fake_appserver.cli:main"
            _warm = ForkServer(entry, _WARM_IMPORTS, import_roots())
            # Ended and waited for before we exit, so that its children's CPU is ours.
            atexit.register(_warm.close)
        return _warm
