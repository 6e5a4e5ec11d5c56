"""Bad input to `codex-probe` gets one line on stderr naming it and where, a documented
exit code (2 for usage), and nothing written half-way: never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codex_probe.cli.commands import drive, validate
from codex_probe.cli.main import CLOSED_STDOUT, main
from codex_probe.harness.codex.npm import NpmError
from codex_probe.harness.jsonrpc.transcript import read_transcript
from tests.cli import codex_probe
from tests.fake.conftest import copy_profile

USAGE_ERROR = 2


def assert_one_line_usage_error(done: subprocess.CompletedProcess[str], line: str) -> None:
    assert done.returncode == USAGE_ERROR, done.stderr
    assert done.stderr == line + "\n"
    assert done.stdout == ""


def files_under(folder: Path) -> set[Path]:
    return set(folder.rglob("*"))


# ----- drive --out -----------------------------------------------------------------------


def test_drive_into_a_file_is_a_usage_error_in_one_line_and_writes_nothing(
    tmp_path: Path,
) -> None:
    out = tmp_path / "taken"
    out.write_text("")
    done = codex_probe("drive", "--backend", "fake", "--message", "hi", "--out", str(out))
    assert_one_line_usage_error(done, f"codex-probe drive: --out {out} is a file, not a folder")
    assert files_under(tmp_path) == {out}


def test_drive_into_a_folder_below_a_file_names_the_file(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("")
    out = taken / "sub"
    done = codex_probe("drive", "--backend", "fake", "--message", "hi", "--out", str(out))
    assert_one_line_usage_error(
        done, f"codex-probe drive: --out {out}: {taken} is a file, not a folder"
    )


def test_drive_whose_drive_folder_would_be_a_file_names_that_file(tmp_path: Path) -> None:
    (tmp_path / "drive").write_text("")
    done = codex_probe("drive", "--backend", "fake", "--message", "hi", "--out", str(tmp_path))
    assert_one_line_usage_error(
        done,
        f"codex-probe drive: --out {tmp_path}: {tmp_path / 'drive'} is a file, not a folder",
    )


@pytest.mark.parametrize("below", ["", "deeper/still"])
def test_drive_into_a_read_only_folder_is_a_usage_error_and_creates_nothing_there(
    tmp_path: Path, below: str
) -> None:
    # Root could write there anyway: the folder's missing write bits are what says read-only.
    read_only = tmp_path / "read-only"
    read_only.mkdir()
    read_only.chmod(0o555)
    out = read_only / below if below else read_only
    try:
        done = codex_probe("drive", "--backend", "fake", "--message", "hi", "--out", str(out))
        assert list(read_only.iterdir()) == []
    finally:
        read_only.chmod(0o755)
    where = f"--out {out}" if out == read_only else f"--out {out}: {read_only}"
    assert_one_line_usage_error(done, f"codex-probe drive: {where} is a read-only folder")


def test_drive_whose_transcript_would_replace_a_folder_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(drive, "_stamp", lambda: "STAMP")
    transcript = tmp_path / "drive" / "transcript-fake-0.171.0-STAMP.jsonl"
    transcript.mkdir(parents=True)
    args = ["--backend", "fake", "--codex", "0.171.0", "--message", "hi", "--out", str(tmp_path)]
    code = main(["drive", *args])
    captured = capsys.readouterr()
    assert code == USAGE_ERROR
    assert captured.err == (
        f"codex-probe drive: --out {tmp_path}: the transcript {transcript} would replace a folder\n"
    )
    assert captured.out == ""
    assert list(transcript.iterdir()) == []


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("-1", "-1 is not a positive, finite number of seconds"),
        ("0", "0 is not a positive, finite number of seconds"),
        ("nan", "nan is not a positive, finite number of seconds"),
        ("inf", "inf is not a positive, finite number of seconds"),
        ("soon", "'soon' is not a number of seconds"),
    ],
)
def test_drive_refuses_a_turn_timeout_that_is_not_a_positive_finite_number(
    tmp_path: Path, value: str, problem: str
) -> None:
    done = codex_probe(
        "drive", "--backend", "fake", "--message", "hi", "--out", str(tmp_path),
        "--turn-timeout", value,
    )  # fmt: skip
    assert_one_line_usage_error(done, f"codex-probe drive: argument --turn-timeout: {problem}")
    assert files_under(tmp_path) == set()


@pytest.mark.parametrize(
    "command",
    [
        ["bisect", "base-developer-placement", "--from", "0.120.0", "--to", "0.171.0"],
        ["history", "--from", "0.120.0", "--to", "0.171.0"],
    ],
)
@pytest.mark.parametrize(
    ("value", "problem"), [("0", "0 is less than 1"), ("all", "'all' is not a whole number")]
)
def test_history_and_bisect_refuse_to_keep_fewer_than_one_install(
    tmp_path: Path, command: list[str], value: str, problem: str
) -> None:
    # Refused before any release is looked up or installed: nothing is written.
    done = codex_probe(*command, "--keep-installs", value, cwd=tmp_path)
    assert_one_line_usage_error(
        done, f"codex-probe {command[0]}: argument --keep-installs: {problem}"
    )
    assert files_under(tmp_path) == set()


def test_every_usage_error_of_codex_probe_is_one_line_without_the_usage_text() -> None:
    done = codex_probe("drive", "--backend", "fake")
    assert_one_line_usage_error(
        done, "codex-probe drive: the following arguments are required: --message"
    )


# ----- a fake profile of another release -----------------------------------------------


def test_probe_refuses_a_fake_profile_of_another_release_than_codex_names(
    tmp_path: Path,
) -> None:
    (tmp_path / "learned").mkdir()
    profile = copy_profile("0.120.0", tmp_path / "learned")
    out = tmp_path / "out"
    done = codex_probe(
        *("probe", "--backend", "fake", "--codex", "0.171.0", "--fake-profile", str(profile)),
        *("--out", str(out)),
    )
    assert_one_line_usage_error(
        done,
        f"codex-probe probe: --fake-profile {profile} imitates codex-cli 0.120.0,"
        " not --codex 0.171.0 (leave --codex out to use its release)",
    )
    assert not out.exists()


def test_drive_refuses_a_fake_profile_whose_version_is_no_release(tmp_path: Path) -> None:
    (tmp_path / "learned").mkdir()
    profile = copy_profile("0.120.0", tmp_path / "learned")
    document = json.loads(profile.read_text())
    document["version"] = "../../escape"
    profile.write_text(json.dumps(document))
    out = tmp_path / "out"
    done = codex_probe(
        "drive",
        "--backend",
        "fake",
        "--fake-profile",
        str(profile),
        "--message",
        "hi",
        "--out",
        str(out),
    )
    assert done.returncode == USAGE_ERROR, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "version" in done.stderr
    assert not out.exists() and not (tmp_path / "escape").exists()


# ----- a closed stdout ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["compile", "--event", "fresh_start"],
        ["compile", "--event", "fresh_start", "--json"],
        ["cache", "list", "--json"],
    ],
)
def test_a_reader_that_stops_reading_ends_codex_probe_quietly_with_141(
    command: list[str], tmp_path: Path
) -> None:
    # `codex-probe compile | head -0`: the reading end is gone before anything is written.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "codex_probe.cli", *command],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "CODEX_PROBE_CACHE": str(tmp_path)},
        )
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (CLOSED_STDOUT, "")


# ----- validate ----------------------------------------------------------------------------


def test_validate_with_an_unpublished_version_is_a_usage_error_not_a_violation(
    tmp_path: Path,
) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"dir": "send", "t": 0.0, "msg": {}}) + "\n")
    done = codex_probe("validate", "--codex", "9.9.9", str(transcript))
    assert done.returncode == USAGE_ERROR
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("codex-probe validate: codex-cli 9.9.9 is not published on npm")
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('{"dir": "send", "msg": {}}', "missing key 't'"),
        ('{"t": 0}', "missing keys 'dir', 'msg'"),
        ('{"dir": "sent", "t": 0, "msg": {}}', "'dir' must be send, recv or malformed, got 'sent'"),
        ('{"dir": "send", "t": "soon", "msg": {}}', "'t' must be a number of seconds, got 'soon'"),
        ('["send", 0, {}]', "a JSON object with dir, t, msg expected"),
        ('{"dir": "send", "t": 0', "not JSON (Expecting ',' delimiter at column 23)"),
    ],
)
def test_validate_names_the_file_line_and_missing_key_of_a_broken_transcript(
    tmp_path: Path, line: str, problem: str
) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"dir": "send", "t": 0.5, "msg": {}}\n' + line + "\n")
    # The transcript is read before the version is looked at: no install, no network.
    done = codex_probe("validate", "--codex", "0.171.0", str(transcript))
    assert_one_line_usage_error(
        done, f"codex-probe validate: {transcript}:2: not a transcript entry: {problem}"
    )


def test_a_transcript_that_is_not_utf8_is_refused_naming_the_file(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(b'{"dir": "send", "t": 0, "msg": "\xff"}\n')
    with pytest.raises(ValueError, match=rf"^{transcript}: not UTF-8 text \(byte 32\)$"):
        read_transcript(transcript)


def test_validate_when_the_version_cannot_be_installed_exits_3_not_as_a_violation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def unreachable(version: str) -> None:
        raise NpmError(f"npm view @openai/codex@{version} failed: registry unreachable")

    monkeypatch.setattr(validate, "install", unreachable)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"dir": "send", "t": 0.0, "msg": {}}) + "\n")
    code = main(["validate", "--codex", "0.171.0", str(transcript)])
    captured = capsys.readouterr()
    assert code == 3
    assert captured.err == (
        "codex-probe validate: npm view @openai/codex@0.171.0 failed: registry unreachable\n"
    )
    assert captured.out == ""


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ([], "give a FINDING or --surface-key KEY (one of them)"),
        (["base-developer-placement", "--surface-key", "schema x"], "(one of them)"),
        (["--surface-key", "answers"], "is not 'ASPECT KEY'; aspects: initialize, notifications"),
        (["--surface-key", "answers nowhere A thread/start"], "no scenario 'nowhere'"),
        (["--surface-key", "schema client request x", "--observed", "a"], "--observed reads a"),
    ],
)
def test_bisect_refuses_anything_but_one_finding_or_one_surface_key(
    tmp_path: Path, args: list[str], problem: str
) -> None:
    done = codex_probe("bisect", *args, "--from", "0.120.0", "--to", "0.171.0", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert problem in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert files_under(tmp_path) == set()
