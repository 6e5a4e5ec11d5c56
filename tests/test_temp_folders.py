"""codex-probe's temporary folders (a scenario's home) go when their process goes, even
when it is killed outright: a janitor process removes what is still listed once its
process is gone, and never what the process keeps or did not make."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

from codex_probe.harness import temp_folders

REPO = Path(__file__).resolve().parents[1]
DEADLINE_S = 30.0
GONE_WITHIN_S = 5.0
POLL_S = 0.02
# An app-server that writes into its home for good (it takes no notice of its parent's end).
WRITES = """
import os, sys
session = os.path.join(sys.argv[1], "home", "codex_home", "sessions")
while True:
    os.makedirs(session, exist_ok=True)
    with open(os.path.join(session, "rollout.jsonl"), "a") as rollout:
        rollout.write("a line\\n")
"""
# Makes the homes its arguments ask for (`kept` or `home`; `kill-janitor` kills its janitor
# by hand, `writer` starts WRITES in the last home), prints each one's folder, then runs
# until killed or its stdin ends.
MAKER = f"""
WRITES = {WRITES!r}
import os, signal, subprocess, sys
from pathlib import Path
from codex_probe.harness import temp_folders
from codex_probe.rig.homes import IsolatedHome
homes = []
for what in sys.argv[2:]:
    if what == "kill-janitor":
        os.kill(temp_folders._registry._janitor.pid, signal.SIGKILL)
        temp_folders._registry._janitor.wait()
        continue
    if what == "writer":
        # An app-server that outlives this process and writes into the last home for good.
        subprocess.Popen(
            [sys.executable, "-c", WRITES, str(homes[-1].root), "app-server"],
            cwd=homes[-1].workdir, start_new_session=True,
        )
        continue
    home = IsolatedHome("http://127.0.0.1:9/v1", parent_dir=Path(sys.argv[1]), keep=what == "kept")
    homes.append(home)
    print(home.root, flush=True)
sys.stdin.read()
"""


def gone_within(path: Path, seconds: float) -> bool:
    ends = time.monotonic() + seconds
    while path.exists():
        if time.monotonic() >= ends:
            return False
        time.sleep(POLL_S)  # the filesystem gives no event for another process's rmtree
    return True


def start_maker(parent: Path, *homes: str) -> tuple[subprocess.Popen[str], list[Path]]:
    maker = subprocess.Popen(
        [sys.executable, "-c", MAKER, str(parent), *homes],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert maker.stdout is not None
    wanted = len([home for home in homes if home not in ("kill-janitor", "writer")])
    # Read from the pipe itself: a buffered readline may take two homes at once, and select
    # would then wait for a line that already came (CI under load, 2026-12-03).
    said = b""
    with selectors.DefaultSelector() as selector:
        selector.register(maker.stdout, selectors.EVENT_READ)
        while said.count(b"\n") < wanted:
            if not selector.select(timeout=DEADLINE_S):
                maker.kill()
                raise AssertionError("the maker printed no home within the deadline")
            chunk = os.read(maker.stdout.fileno(), 4096)
            if not chunk:
                raise AssertionError(f"the maker ended after printing {said!r}")
            said += chunk
    return maker, [Path(line) for line in said.decode().splitlines()]


def end(maker: subprocess.Popen[str]) -> None:
    maker.kill()
    maker.wait(timeout=DEADLINE_S)
    for stream in (maker.stdin, maker.stdout):
        if stream is not None:
            stream.close()


def test_the_home_of_a_process_killed_outright_is_gone_within_seconds(tmp_path: Path) -> None:
    maker, [home] = start_maker(tmp_path, "home")
    assert home.is_dir() and home.name.startswith("codex-probe-")
    maker.send_signal(signal.SIGKILL)
    maker.wait(timeout=DEADLINE_S)
    end(maker)
    assert gone_within(home, GONE_WITHIN_S)


def test_a_home_kept_on_purpose_outlives_its_process(tmp_path: Path) -> None:
    maker, [kept, home] = start_maker(tmp_path, "kept", "home")
    maker.send_signal(signal.SIGKILL)
    maker.wait(timeout=DEADLINE_S)
    end(maker)
    assert gone_within(home, GONE_WITHIN_S)
    assert kept.is_dir()


def test_a_home_left_behind_at_a_normal_exit_is_removed_too(tmp_path: Path) -> None:
    maker, [home] = start_maker(tmp_path, "home")
    assert maker.stdin is not None
    maker.stdin.close()  # the maker ends normally, without cleaning up its home
    assert maker.wait(timeout=DEADLINE_S) == 0
    end(maker)
    assert gone_within(home, GONE_WITHIN_S)


def test_a_home_whose_janitor_was_killed_by_hand_is_removed_at_a_normal_exit(
    tmp_path: Path,
) -> None:
    # No folder is made after the kill, so nothing else would start a janitor again.
    maker, [home] = start_maker(tmp_path, "home", "kill-janitor")
    assert maker.stdin is not None
    maker.stdin.close()
    assert maker.wait(timeout=DEADLINE_S) == 0
    end(maker)
    assert gone_within(home, GONE_WITHIN_S)


def test_a_janitor_killed_by_hand_is_started_again_and_told_every_folder(
    tmp_path: Path,
) -> None:
    maker, [before, after] = start_maker(tmp_path, "home", "kill-janitor", "home")
    maker.send_signal(signal.SIGKILL)
    maker.wait(timeout=DEADLINE_S)
    end(maker)
    assert gone_within(before, GONE_WITHIN_S)
    assert gone_within(after, GONE_WITHIN_S)


def processes_naming(home: Path) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if str(home).encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_an_app_server_still_writing_into_a_home_is_ended_and_the_home_removed(
    tmp_path: Path,
) -> None:
    maker, [home] = start_maker(tmp_path, "home", "writer")
    rollout = home / "home" / "codex_home" / "sessions" / "rollout.jsonl"
    try:
        ends = time.monotonic() + DEADLINE_S
        while not rollout.exists():
            assert time.monotonic() < ends, "the writer never wrote"
            time.sleep(POLL_S)  # the filesystem gives no event for another process's write
        maker.send_signal(signal.SIGKILL)
        maker.wait(timeout=DEADLINE_S)
        ends = time.monotonic() + GONE_WITHIN_S
        while home.exists() or any(alive(pid) for pid in processes_naming(home)):
            assert time.monotonic() < ends, "the home or its writer is still there"
            time.sleep(POLL_S)  # /proc and the filesystem give no event to wait on
        assert not home.exists()  # and nothing writes it again
    finally:
        end(maker)
        for pid in processes_naming(home):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_the_janitor_removes_only_folders_named_codex_probe(tmp_path: Path) -> None:
    ours, other = tmp_path / "codex-probe-x1", tmp_path / "photos"
    ours.mkdir()
    other.mkdir()
    lines = [f"+ {json.dumps(str(ours))}", f"+ {json.dumps(str(other))}", "+ not json", ""]
    done = subprocess.run(
        [sys.executable, "-I", "-S", temp_folders.__file__],
        input="\n".join(lines),
        text=True,
        timeout=DEADLINE_S,
        check=False,
    )
    assert done.returncode == 0
    assert not ours.exists()
    assert other.is_dir()
