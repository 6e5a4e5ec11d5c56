"""codex's `lsb_release -a`, answered with the machine's own answer, read once.

codex names the OS in the user agent of its requests and learns it through the os_info
crate, which runs `lsb_release -a` every time it is asked (nothing is cached): 271 times in
one probe of 0.149.1. Where lsb_release is Debian's shell script it starts about eight
processes each time, 15 ms of CPU here (a probe of 0.149.1 took 36.9 CPU-s with this
file's answer against 39.5 without, medians of 4 pairs: docs/benchmarks.md). So each home puts a
folder of its own in front of codex's PATH, whose `lsb_release` is a one-process script:
asked `-a`, it prints what the machine's own `lsb_release -a` printed when this process
first asked it (same environment as codex's but for the homes), byte for byte, on the same
streams, with the same exit status; asked anything else, it execs the real one. codex sees
what it would have seen.

A machine without lsb_release gets no folder (codex then reads /etc/os-release itself, as it
would). An answer that could not be read once (the program would not start, ran past its
deadline, or printed a NUL byte, which a shell script cannot print) gets no folder either:
codex runs the real one, as before.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from codex_probe.harness.parent_death import bound_to_this_process

PROGRAM = "lsb_release"
ASKED = "-a"  # what os_info asks it (one argument)
READ_WITHIN_S = 10.0  # it takes 15 ms; a machine under load may take far longer


@dataclass(frozen=True)
class Answer:
    program: str  # the real one, as found on the PATH codex is given
    stdout: bytes
    stderr: bytes
    returncode: int


def answered_path(folder: Path, path: str, env: Mapping[str, str]) -> str:
    """The PATH to give codex instead of `path`: `folder` first, holding the answering
    `lsb_release` (written on first use), when the machine's answer could be read with
    `env` (codex's environment without its PATH and homes); else `path` itself."""
    answer = machine_answer(path, tuple(sorted(env.items())))
    if answer is None:
        return path
    script = folder / PROGRAM
    if not script.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        script.write_bytes(answering_script(answer))
        script.chmod(0o755)
    return f"{folder}{os.pathsep}{path}"


@functools.cache
def machine_answer(path: str, env: tuple[tuple[str, str], ...]) -> Answer | None:
    """What the `lsb_release` on `path` answers `-a` with `env` (see the module), asked once
    per process; None when there is none or its answer cannot be read."""
    program = shutil.which(PROGRAM, path=path)
    if program is None:
        return None
    try:
        done = subprocess.run(
            bound_to_this_process([program, ASKED]),
            env={**dict(env), "PATH": path},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=READ_WITHIN_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if b"\0" in done.stdout + done.stderr or done.returncode < 0:
        return None  # a NUL cannot be printed by the script; a signal cannot be repeated
    # The path codex would run, not its symlink's target: a program may read its name.
    return Answer(os.path.abspath(program), done.stdout, done.stderr, done.returncode)


def answering_script(answer: Answer) -> bytes:
    """A POSIX shell script that answers `-a` as `answer` and hands anything else on."""

    def quoted(data: bytes) -> str:
        return shlex.quote(data.decode("utf-8", "surrogateescape"))

    text = (
        "#!/bin/sh\n"
        "# codex-probe: the machine's own answer, read once (codex_probe/rig/lsb_release.py)\n"
        f'if [ "$#" = 1 ] && [ "x$1" = {shlex.quote("x" + ASKED)} ]; then\n'
        f"  printf '%s' {quoted(answer.stdout)}\n"
        f"  printf '%s' {quoted(answer.stderr)} >&2\n"
        f"  exit {answer.returncode}\n"
        "fi\n"
        f'exec {shlex.quote(answer.program)} "$@"\n'
    )
    return text.encode("utf-8", "surrogateescape")
