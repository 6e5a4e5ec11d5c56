"""The install / schema / validate subcommands, as a person runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codex_probe.harness.codex.install import Installation

pytestmark = pytest.mark.real


def codex_probe(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codex_probe.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_install_json_prints_version_binary_and_schema_folder(default_codex: Installation) -> None:
    done = codex_probe("install", "--codex", default_codex.version, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report == {
        "version": default_codex.version,
        "binary": str(default_codex.binary),
        "schema": str(default_codex.schema_dir),
    }


def test_install_of_an_unpublished_version_exits_non_zero_with_one_line() -> None:
    done = codex_probe("install", "--codex", "9.9.9")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert "9.9.9 is not published on npm; nearest versions: 0." in done.stderr


def test_validate_lists_every_violation_and_exits_one(
    default_codex: Installation,
    tmp_path: Path,
) -> None:
    transcript = tmp_path / "t.jsonl"
    lines = [
        {
            "dir": "send",
            "t": 0.0,
            "msg": {"id": 1, "method": "thread/start", "params": {"baseInstructions": 7}},
        },
        {"dir": "recv", "t": 0.1, "msg": {"id": 1, "result": {"thread": []}}},
        {"dir": "recv", "t": 0.2, "msg": {"method": "thread/teleported", "params": {}}},
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = codex_probe("validate", "--codex", default_codex.version, str(transcript))
    assert done.returncode == 1
    assert "entry 1: client request thread/start at params.baseInstructions" in done.stdout
    assert "entry 2: server response thread/start at result.thread" in done.stdout
    assert "entry 3: server notification thread/teleported" in done.stdout
    assert "3 messages checked" in done.stdout


def test_validate_names_the_line_of_a_broken_transcript(
    default_codex: Installation,
    tmp_path: Path,
) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"dir": "send", "t": 0, "msg": {}}\nnot json\n')
    done = codex_probe("validate", "--codex", default_codex.version, str(transcript))
    assert done.returncode == 2
    assert f"{transcript}:2: not a transcript entry" in done.stderr


def test_schema_json_lists_the_methods_the_version_defines(default_codex: Installation) -> None:
    done = codex_probe("schema", "--codex", default_codex.version, "--json")
    assert done.returncode == 0, done.stderr
    methods = json.loads(done.stdout)["methods"]
    assert {"thread/start", "thread/resume", "turn/steer"} <= set(methods["client request"])
    assert "turn/completed" in methods["server notification"]
