"""Start an installed codex-cli the way its npm launcher does, without node.

`node_modules/.bin/codex` is a Node script: it finds the platform package's native binary,
adds a few variables to the environment (`CODEX_MANAGED_BY_NPM`, the package's root; a
release may put a folder of its own tools in front of PATH) and spawns the binary with the
arguments it got, forwarding signals and the exit status. A history starts codex about 35
times a release, and node's start-up costs about 70 ms of CPU each time (2.6 CPU-s a
release, measured with process accounting: docs/benchmarks.md).

So once per install the launcher is run with node's process-starting functions replaced by
a recorder (launch_capture.mjs): it writes down what it would start, with which arguments
and environment, and starts nothing. `launch/codex` in the install then does the same in a
shell: it sets what the launcher set, unsets what it removed, and execs the binary in place
(same pid, so signals and the exit status are the binary's own). Nothing about a release is
written here by hand: each install's own launcher is asked. Where it cannot be asked, or
did something this cannot repeat exactly (other arguments, a working directory, a shell),
the npm launcher stays the binary, and `launch/why` says why; it is not asked again.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from codex_probe.harness import child_env
from codex_probe.harness.parent_death import bound_to_this_process

LAUNCH_FOLDER = "launch"
SCRIPT = Path(LAUNCH_FOLDER) / "codex"
WHY = Path(LAUNCH_FOLDER) / "why"
RECORDER = Path(__file__).with_name("launch_capture.mjs")
RECORD_ENV = "CODEX_PROBE_LAUNCH_RECORD"
# Arguments the launcher must hand on unchanged for the script to stand in for it.
PROBE_ARGS = ("app-server", "--codex-probe-launch-check")
# Spawn options the script repeats: the environment, and stdio, which must be inherited.
REPEATABLE_OPTIONS = {"stdio"}
ASK_TIMEOUT_S = 30.0


class CannotRepeat(Exception):
    """The launcher's start of codex is not one `launch/codex` can repeat exactly."""


def direct_binary(root: Path, launcher: Path) -> Path:
    """What starts codex in the install at `root`: `launch/codex` (made now if it was
    never tried), or `launcher` itself when it cannot stand in for it."""
    script = root / SCRIPT
    if script.is_file() and _made_for(script, root):
        return script
    if (root / WHY).is_file() or not _is_node_script(launcher):
        return launcher
    try:
        text = script_text(_ask(launcher))
    except CannotRepeat as why:
        _write(root / WHY, f"{why}\n", executable=False)
        return launcher
    except OSError:
        return launcher  # a cache that cannot be written to: the launcher, asked next time
    _write(script, text, executable=True)
    return script


def _made_for(script: Path, root: Path) -> bool:
    """Whether `script` starts the binary of the install at `root`: one made before the
    cache was moved or copied elsewhere names the old place, and is made again."""
    try:
        return f"{root.resolve()}{os.sep}" in script.read_text(encoding="utf-8")
    except OSError:
        return False


def _is_node_script(launcher: Path) -> bool:
    try:
        with launcher.open("rb") as handle:
            first = handle.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"node" in first


def _ask(launcher: Path) -> dict[str, Any]:
    """What `launcher` would start for PROBE_ARGS, as the recorder wrote it."""
    node = shutil.which("node", path=child_env.search_path())
    if node is None:
        raise CannotRepeat("node is not on PATH")
    with tempfile.TemporaryDirectory(prefix="codex-probe-launch-") as scratch:
        record = Path(scratch) / "launch.json"
        env = _asking_env(Path(scratch))
        try:
            asking = [node, "--import", RECORDER.as_uri(), str(launcher.resolve()), *PROBE_ARGS]
            done = subprocess.run(
                bound_to_this_process(asking),
                env={**env, RECORD_ENV: str(record)},
                cwd=scratch,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=ASK_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            waited = f"{ASK_TIMEOUT_S:.0f} s"
            raise CannotRepeat(f"the launcher started nothing within {waited}") from None
        if done.returncode != 0 or not record.is_file():
            raise CannotRepeat(
                f"the launcher exited {done.returncode} without starting codex: "
                f"{launcher_error(done.stderr)}"
            )
        try:
            started = json.loads(record.read_text(encoding="utf-8"))
        except ValueError as error:
            raise CannotRepeat(f"the recorder wrote no JSON: {error}") from None
    if not isinstance(started, dict):
        raise CannotRepeat("the recorder wrote no object")
    started["asked_env"] = env
    return started


def launcher_error(stderr: str) -> str:
    """The line that says why (a node launcher prints `Error: ...` amid its stack)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    said = next((line for line in lines if line.startswith("Error")), None)
    return said or stderr.strip()[-500:] or "(no output)"


def _asking_env(scratch: Path) -> dict[str, str]:
    """The environment the launcher is asked with: every variable a codex child is ever
    given (rig/homes.py), so that what the launcher removes of them is seen too. A variable
    a child is not given is handed on by the script as the launcher would hand it on,
    unless the launcher removes it: no child of codex-probe has one."""
    own = {
        "PATH": child_env.search_path(),
        "HOME": str(scratch),
        "CODEX_HOME": str(scratch),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "RUST_LOG": "warn",
    }
    return child_env.child_env(child_env.CODEX, own)


def script_text(started: dict[str, Any]) -> str:
    """The shell script that starts what the launcher started (see the module), from the
    recorder's record and the environment the launcher was asked with (`asked_env`)."""
    if started.get("call") != "spawn":
        raise CannotRepeat(f"the launcher starts codex with {started.get('call')}, not spawn")
    if tuple(started.get("args", ())) != PROBE_ARGS:
        raise CannotRepeat(f"the launcher changes the arguments: {started.get('args')}")
    if extra := set(started.get("options", ())) - REPEATABLE_OPTIONS:
        raise CannotRepeat(f"the launcher spawns with {', '.join(sorted(extra))}")
    if started.get("stdio") not in ("inherit", None):
        raise CannotRepeat(f"the launcher spawns with stdio {started.get('stdio')!r}")
    if not isinstance(started.get("command"), str):
        raise CannotRepeat("the launcher starts no program the recorder could name")
    command = Path(started["command"])
    if not command.is_absolute():
        raise CannotRepeat(f"the launcher starts {command}, not an absolute path")
    asked: dict[str, str] = started["asked_env"]
    given = started.get("env")
    if given is not None and not isinstance(given, dict):
        raise CannotRepeat("the launcher spawns with an environment that is not an object")
    final = dict(asked) if given is None else {k: str(v) for k, v in given.items()}
    final.pop(RECORD_ENV, None)  # the recorder's own, not the launcher's
    lines = [
        "#!/bin/sh",
        "# Written by codex-probe (harness/codex/direct_launch.py): what this release's npm",
        "# launcher, node_modules/.bin/codex, does to start codex, without node.",
    ]
    for name in sorted(set(asked) - set(final)):
        lines.append(f"unset {_name(name)}")
    for name in sorted(final):
        value, before = final[name], asked.get(name)
        if value == before:
            continue
        lines.append(f"export {_name(name)}={_value(name, value, before)}")
    lines.append(f'exec {shlex.quote(str(command))} "$@"')
    return "\n".join(lines) + "\n"


def _name(name: str) -> str:
    if not name.replace("_", "a").isalnum() or name[0].isdigit():
        raise CannotRepeat(f"the launcher sets a variable the shell cannot name: {name!r}")
    return name


def _value(name: str, value: str, before: str | None) -> str:
    """The shell word for `value`: the variable's own value kept where the launcher kept it
    (a folder put in front of PATH), the rest as written."""
    if before and before in value:
        head, _, tail = value.partition(before)
        kept = f'"${{{name}}}"'
        return (shlex.quote(head) if head else "") + kept + (shlex.quote(tail) if tail else "")
    return shlex.quote(value)


def _write(path: Path, text: str, *, executable: bool) -> None:
    """Written aside and renamed: another process may be starting the script right now, and
    another thread of this one (a history installs the next release meanwhile) writing it."""
    path.parent.mkdir(exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    staging = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as sink:
            sink.write(text)
        staging.chmod(0o755 if executable else 0o644)
        os.replace(staging, path)
    except BaseException:
        staging.unlink(missing_ok=True)
        raise
