from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codex_probe.harness.codex.direct_launch import (
    SCRIPT,
    WHY,
    CannotRepeat,
    direct_binary,
    script_text,
)
from codex_probe.harness.codex.install import Installation, binary_version
from tests.child_processes import plant_canaries

# What the program the launchers start prints: its arguments and the variables it was given.
PRINT = "import json, os, sys; print(json.dumps([sys.argv[1:], dict(os.environ)]))"
SHOW = f"""#!/bin/sh
exec {sys.executable} -I -S -c '{PRINT}' "$@"
"""

# A launcher shaped as codex-cli's: it adds variables, removes one a codex child is given,
# puts a folder in front of PATH and hands on its arguments. What it starts is beside it.
LAUNCHER = """#!/usr/bin/env node
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
const here = path.dirname(fileURLToPath(import.meta.url));
const env = { ...process.env, MANAGED: "1", ROOT: here, PATH: `${here}/tools:${process.env.PATH}` };
delete env.TZ;
const child = spawn(path.join(here, "show"), process.argv.slice(2), { stdio: "inherit", env });
child.on("exit", (code) => process.exit(code ?? 1));
"""


def _launcher(folder: Path, text: str = LAUNCHER) -> Path:
    folder.mkdir(parents=True)
    (folder / "show").write_text(SHOW)
    (folder / "show").chmod(0o755)
    launcher = folder / "codex.mjs"
    launcher.write_text(text)
    launcher.chmod(0o755)
    return launcher


def _started(binary: Path, env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run(
        [str(binary), "app-server", "--listen", "stdio://"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    args, env = json.loads(done.stdout)
    return {"args": args, "env": env}


def test_the_script_starts_what_the_launcher_starts_with_the_same_arguments_and_environment(
    tmp_path: Path,
) -> None:
    launcher = _launcher(tmp_path / "package")
    script = direct_binary(tmp_path, launcher)
    assert script == tmp_path / SCRIPT
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "TZ": "UTC", "KEPT": "y"}
    by_node, by_script = _started(launcher, env), _started(script, env)
    assert by_script["args"] == by_node["args"] == ["app-server", "--listen", "stdio://"]
    for shown in (by_node["env"], by_script["env"]):
        assert isinstance(shown, dict)
        shown.pop("PWD", None)  # the shell's own
        shown.pop("SHLVL", None)
        shown.pop("_", None)
    assert by_script["env"] == by_node["env"]
    started_env = by_script["env"]
    assert isinstance(started_env, dict)
    assert "TZ" not in started_env and started_env["KEPT"] == "y"
    assert started_env["PATH"] == f"{tmp_path / 'package'}/tools:{os.environ['PATH']}"


def test_a_launcher_that_changes_the_arguments_stays_the_binary_and_the_reason_is_kept(
    tmp_path: Path,
) -> None:
    changes = LAUNCHER.replace("process.argv.slice(2)", '["app-server", "--extra"]')
    launcher = _launcher(tmp_path / "package", changes)
    assert direct_binary(tmp_path, launcher) == launcher
    assert "changes the arguments" in (tmp_path / WHY).read_text()
    assert not (tmp_path / SCRIPT).exists()
    (tmp_path / "package" / "codex.mjs").write_text(LAUNCHER)  # not asked again
    assert direct_binary(tmp_path, launcher) == launcher


def test_a_launcher_that_starts_nothing_stays_the_binary_with_what_it_said(
    tmp_path: Path,
) -> None:
    launcher = _launcher(
        tmp_path / "package", "#!/usr/bin/env node\nthrow new Error('no binary');\n"
    )
    assert direct_binary(tmp_path, launcher) == launcher
    assert "without starting codex: Error: no binary" in (tmp_path / WHY).read_text()


def test_a_script_made_before_the_install_was_moved_is_made_again_for_its_new_place(
    tmp_path: Path,
) -> None:
    _launcher(tmp_path / "first" / "package")
    direct_binary(tmp_path / "first", tmp_path / "first" / "package" / "codex.mjs")
    shutil.move(tmp_path / "first", tmp_path / "moved")
    launcher = tmp_path / "moved" / "package" / "codex.mjs"
    script = direct_binary(tmp_path / "moved", launcher)
    assert script == tmp_path / "moved" / SCRIPT
    assert str(tmp_path / "first") not in script.read_text()
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    assert _started(script, env)["args"] == ["app-server", "--listen", "stdio://"]


def test_the_launcher_asked_gets_no_secret_of_the_callers_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    canaries = plant_canaries(monkeypatch)
    seen = tmp_path / "asked-with.json"
    telling = LAUNCHER.replace(
        "const child =",
        f"(await import('node:fs')).writeFileSync({json.dumps(str(seen))}, "
        "JSON.stringify(process.env));\nconst child =",
    )
    direct_binary(tmp_path, _launcher(tmp_path / "package", telling))
    asked_with = seen.read_text()
    assert not [canary for canary in canaries if canary in asked_with]
    assert "CODEX_HOME" in json.loads(asked_with)


def test_a_launcher_that_is_not_a_node_script_is_the_binary_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    launcher = tmp_path / "codex"
    launcher.write_text("#!/bin/sh\nexec true\n")
    assert direct_binary(tmp_path, launcher) == launcher
    assert not (tmp_path / "launch").exists()


@pytest.mark.real
def test_an_installed_release_starts_without_node_and_reports_its_version(
    default_codex: Installation,
) -> None:
    assert default_codex.binary == default_codex.root / SCRIPT
    text = default_codex.binary.read_text()
    program = shlex.split(text.splitlines()[-1])[1]
    assert Path(program).read_bytes()[:4] == b"\x7fELF"  # codex itself, not node
    assert "CODEX_MANAGED_BY_NPM=1" in text
    assert binary_version(default_codex.binary) == default_codex.version


ASKED = {"PATH": "/usr/bin", "HOME": "/h"}
SPAWNED = {
    "call": "spawn",
    "command": "/opt/codex/bin/codex",
    "args": ["app-server", "--codex-probe-launch-check"],
    "env": {"PATH": "/opt/codex/path:/usr/bin", "HOME": "/h", "MANAGED": "1"},
    "options": ["stdio"],
    "stdio": "inherit",
    "asked_env": ASKED,
}


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"call": "spawnSync"}, "with spawnSync, not spawn"),
        ({"options": ["stdio", "cwd"]}, "spawns with cwd"),
        ({"options": ["stdio", "shell"]}, "spawns with shell"),
        ({"stdio": "pipe"}, "stdio 'pipe'"),
        ({"command": "codex"}, "not an absolute path"),
        ({"command": None}, "no program"),
        ({"env": "PATH=/x"}, "not an object"),
        ({"args": ["app-server"]}, "changes the arguments"),
    ],
)
def test_a_start_the_script_cannot_repeat_exactly_is_refused_with_the_reason(
    change: dict[str, object], why: str
) -> None:
    with pytest.raises(CannotRepeat, match=why):
        script_text({**SPAWNED, **change})


def test_the_script_sets_what_the_launcher_set_and_keeps_the_callers_path_where_it_kept_it() -> (
    None
):
    text = script_text(SPAWNED)
    assert "export MANAGED=1" in text
    assert 'export PATH=/opt/codex/path:"${PATH}"' in text
    assert "HOME" not in text  # handed on unchanged
    assert text.splitlines()[-1] == 'exec /opt/codex/bin/codex "$@"'
