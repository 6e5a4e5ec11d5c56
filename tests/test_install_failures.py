"""Every command that installs codex-cli ends a failed install the same way: one line, its code.

The install is replaced by one that fails, so nothing here needs npm or the network.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from codex_probe.cli.commands import (
    drive,
    install,
    learn,
    probe,
    schema,
    schema_diff,
    smoke,
    validate,
)
from codex_probe.cli.main import main
from codex_probe.harness.codex.install import InstallError, UnknownVersionError
from codex_probe.harness.codex.npm import NpmError

FAILURES: dict[str, Callable[[str], Exception]] = {
    "unknown version": lambda version: UnknownVersionError(version, ["0.171.0"]),
    "npm": lambda version: NpmError(f"npm view @openai/codex@{version} failed: unreachable"),
    "install": lambda version: InstallError(f"codex-cli {version}: npm installed nothing"),
}


def argv_of(command: str, tmp_path: Path) -> list[str]:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"dir": "send", "t": 0.0, "msg": {}}) + "\n")
    out = str(tmp_path / "out")
    return {
        "install": ["install", "--codex", "0.171.0"],
        "schema": ["schema", "--codex", "0.171.0"],
        "smoke": ["smoke", "--codex", "0.171.0", "--out", out],
        "schema-diff": ["schema-diff", "--from", "0.171.0", "--to", "0.172.0"],
        "learn": ["learn", "--codex", "0.171.0", "--out", out],
        "probe": ["probe", "--codex", "0.171.0", "--out", out],
        "validate": ["validate", "--codex", "0.171.0", str(transcript)],
        "drive": ["drive", "--backend", "real", "--message", "m", "--out", out],
    }[command]


# (command, its module, the name it calls the installer by, exit code for an unpublished
# version, exit code for a failed npm or install)
COMMANDS: list[tuple[str, ModuleType, str, int, int]] = [
    ("install", install, "install", 1, 1),
    ("schema", schema, "install", 1, 1),
    ("smoke", smoke, "install", 1, 1),
    ("schema-diff", schema_diff, "install", 1, 1),
    ("learn", learn, "install", 2, 2),
    ("probe", probe, "install_codex", 2, 2),
    ("validate", validate, "install", 2, 3),
    ("drive", drive, "install_codex", 2, 1),
]


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize(
    ("command", "module", "installer", "unknown_version_code", "failed_install_code"),
    COMMANDS,
    ids=[command for command, *_ in COMMANDS],
)
def test_a_failed_install_ends_the_command_with_one_line_and_its_documented_code(
    command: str,
    module: ModuleType,
    installer: str,
    unknown_version_code: int,
    failed_install_code: int,
    failure: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    error = FAILURES[failure]("0.171.0")

    def failing_install(version: str) -> None:
        raise error

    monkeypatch.setattr(module, installer, failing_install)
    code = main(argv_of(command, tmp_path))
    captured = capsys.readouterr()
    expected_code = unknown_version_code if failure == "unknown version" else failed_install_code
    assert code == expected_code
    assert captured.err == f"codex-probe {command}: {error}\n"
    assert captured.out == ""
