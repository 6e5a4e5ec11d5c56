"""reproduce.py's exit codes: 0 reproduced, 1 codex behaves otherwise, 2 the run could not be
made; every wait bounded and no process left behind."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION, SPEC_CODEX_VERSION
from codex_probe.rig.backends import make_backend
from tests.child_processes import POLL_S, Seen, kill_all, read, snapshot
from tests.probes.repro.bundles import BundleRun, bundled, run_bundle

pytestmark = pytest.mark.real  # the fake reads its schema from the installed release


async def test_a_bundle_run_on_the_codex_it_was_recorded_on_reproduces_it(
    tmp_path: Path, default_codex: Installation
) -> None:
    fake = make_backend("fake", DEFAULT_CODEX_VERSION)
    finding, folder = await bundled(fake, "resume-refresh-cold", tmp_path / "bundle", tmp_path)
    run = run_bundle(folder, fake.binary)
    assert run.exit_code == 0, run.stderr
    assert run.result["outcome"]["verdict"] == finding.verdict.value == "changed"
    assert run.result["outcome"]["observed"]["new_base_seen"] is True


async def test_a_bundle_exits_2_at_once_when_codex_is_missing(
    tmp_path: Path, default_codex: Installation
) -> None:
    fake = make_backend("fake", DEFAULT_CODEX_VERSION)
    _, folder = await bundled(fake, "start-applies-instructions", tmp_path / "bundle", tmp_path)
    started = time.monotonic()
    run = run_bundle(folder, tmp_path / "no-such-codex")
    assert run.exit_code == 2
    assert time.monotonic() - started < 10
    assert "could not run: --codex" in run.stderr and "no such executable" in run.stderr


async def test_a_bundle_exits_2_within_its_deadline_when_a_turn_never_starts(
    tmp_path: Path, default_codex: Installation
) -> None:
    fake = make_backend("fake", DEFAULT_CODEX_VERSION)
    _, folder = await bundled(fake, "start-applies-instructions", tmp_path / "bundle", tmp_path)
    script = tmp_path / "hang.jsonl"
    script.write_text(json.dumps({"method": "turn/start", "action": "hang"}) + "\n")
    hanging = make_backend("fake", DEFAULT_CODEX_VERSION, script=script)
    started = time.monotonic()
    run = run_bundle(folder, hanging.binary, "--timeout", "2")
    assert time.monotonic() - started < 30
    assert run.exit_code == 2
    failure = run.result["outcome"]["failure"]
    assert (failure["step"], failure["kind"]) == ("turn-1", "no answer")
    assert "turn/start got no answer within 2 s" in failure["detail"]


async def test_a_codex_that_never_answers_is_ended_with_everything_it_started(
    tmp_path: Path, default_codex: Installation
) -> None:
    fake = make_backend("fake", DEFAULT_CODEX_VERSION)
    _, folder = await bundled(fake, "start-applies-instructions", tmp_path / "bundle", tmp_path)
    # Deaf to its stdin, with a child of its own: only its process group's end stops both.
    mute = tmp_path / "mute-codex"
    mute.write_text("#!/bin/sh\nsleep 97 &\nexec sleep 98\n")
    mute.chmod(0o755)
    started = time.monotonic()
    run, seen = run_watched(lambda: run_bundle(folder, mute, "--timeout", "2"))
    try:
        assert time.monotonic() - started < 30
        assert run.exit_code == 2
        assert run.result["outcome"]["failure"]["step"] == "restart-0"
        # Both of `codex --version` and both of `codex app-server`.
        sleepers = [one for one in seen if one.runs("sleep")]
        assert sorted(one.cmdline[-1] for one in sleepers) == ["97", "97", "98", "98"]
        assert [one.pid for one in sleepers if still_runs(one)] == []
    finally:
        kill_all(seen)


def run_watched(action: Callable[[], BundleRun]) -> tuple[BundleRun, list[Seen]]:
    """The bundle run, and every process below this one seen while it ran."""
    runs: list[BundleRun] = []
    worker = threading.Thread(target=lambda: runs.append(action()), daemon=True)
    worker.start()
    seen: dict[tuple[int, tuple[str, ...]], Seen] = {}
    while worker.is_alive():
        for one in snapshot():
            seen.setdefault((one.pid, one.cmdline), one)  # an exec is another image
        time.sleep(POLL_S)
    worker.join()
    return runs[0], list(seen.values())


def still_runs(process: Seen) -> bool:
    now = read(process.pid)
    return now is not None and now.cmdline == process.cmdline


async def test_a_bundle_exits_1_when_codex_behaves_otherwise(
    tmp_path: Path, default_codex: Installation
) -> None:
    recorded_on = make_backend("fake", DEFAULT_CODEX_VERSION)
    finding_id = "interrupt-without-turn-refused"
    _, folder = await bundled(recorded_on, finding_id, tmp_path / "bundle", tmp_path)
    otherwise = make_backend("fake", SPEC_CODEX_VERSION)  # leaves the interrupt unanswered
    run = run_bundle(folder, otherwise.binary)
    assert run.exit_code == 1, run.stderr
    assert run.result["recorded"]["observed"]["answered_at_once"] is True
    assert run.result["outcome"]["observed"]["answered_at_once"] is False


async def test_a_bundle_exits_1_when_its_recorded_values_are_not_what_codex_does(
    tmp_path: Path, default_codex: Installation
) -> None:
    fake = make_backend("fake", DEFAULT_CODEX_VERSION)
    _, folder = await bundled(fake, "start-applies-instructions", tmp_path / "bundle", tmp_path)
    observation = json.loads((folder / "observation.json").read_text())
    observation["outcome"]["observed"]["developer_seen"] = False
    (folder / "observation.json").write_text(json.dumps(observation))
    run = run_bundle(folder, fake.binary)
    assert run.exit_code == 1, run.stderr
    assert run.result["outcome"]["observed"]["developer_seen"] is True


async def test_a_bundle_exits_2_when_its_files_cannot_be_read(
    tmp_path: Path, default_codex: Installation
) -> None:
    fake = make_backend("fake", DEFAULT_CODEX_VERSION)
    _, folder = await bundled(fake, "start-applies-instructions", tmp_path / "bundle", tmp_path)
    (folder / "finding.json").unlink()
    run = run_bundle(folder, fake.binary)
    assert run.exit_code == 2
    assert f"{folder / 'finding.json'}: cannot be read" in run.stderr, run.stderr


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("{}", "'step' must be one of"),
        ("[1, 2, 3]", "expected a step object, got list"),
        ('"a string"', "expected a step object, got str"),
        ('{"label": "turn-1"}', "'step' must be one of"),
        ('{"step": "turn", "label": "turn-1"}', "a turn step needs its 'request'"),
        ("{not json", "not JSON"),
    ],
)
async def test_a_damaged_requests_line_is_one_line_naming_the_file_and_line_and_exit_2(
    tmp_path: Path, default_codex: Installation, line: str, says: str
) -> None:
    fake = make_backend("fake", DEFAULT_CODEX_VERSION)
    _, folder = await bundled(fake, "start-applies-instructions", tmp_path / "bundle", tmp_path)
    requests = folder / "requests.jsonl"
    lines = requests.read_text().splitlines()
    lines[1] = line
    requests.write_text("\n".join(lines) + "\n")
    run = run_bundle(folder, fake.binary)
    assert run.exit_code == 2, run.stderr
    assert run.stderr.strip().count("\n") == 0, run.stderr  # one line, no traceback
    assert f"{requests}:2: " in run.stderr and says in run.stderr, run.stderr


async def test_a_bundle_of_a_present_upstream_bug_does_not_reproduce_on_a_codex_without_it(
    tmp_path: Path, default_codex: Installation
) -> None:
    # Recorded where openai/codex#40805 shows (0.120.0 keeps the answer in flight, the
    # steered input queued behind it): its expected values hold on 0.171.0 too, the value
    # that decides the issue does not, and the bundle says so.
    keeper = make_backend("fake", SPEC_CODEX_VERSION)
    finding, folder = await bundled(
        keeper, "steer-in-flight-reaches-the-turn", tmp_path / "bundle", tmp_path
    )
    assert finding.upstream == [{"issue": "openai/codex#40805", "state": "present"}]
    compared = json.loads((folder / "finding.json").read_text())["compared"]
    assert "item_before_the_in_flight_answer_ended" in compared
    assert run_bundle(folder, keeper.binary).exit_code == 0
    fixed = run_bundle(folder, make_backend("fake", DEFAULT_CODEX_VERSION).binary)
    assert fixed.exit_code == 1, fixed.stderr
    assert fixed.result["outcome"]["verdict"] == "holds"
    assert fixed.result["outcome"]["observed"]["item_before_the_in_flight_answer_ended"] is True
