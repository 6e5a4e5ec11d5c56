"""Listing and pruning cached codex-cli installs, on fake installs in a temporary cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_probe.harness.codex.cache import MARKER, LockTimeout, exclusive_lock, lock_path
from codex_probe.harness.codex.install import LAST_USED, Installation, install, installed
from codex_probe.harness.codex.installs import CachedInstall, list_installs, prune_installs
from codex_probe.harness.codex.npm_cache import npm_cache_env
from tests.fake_installs import CODEX_SHIM, DAY, NOW, fake_install

REPO = Path(__file__).resolve().parents[2]


def install_size(data_bytes: int, version: str) -> int:
    marker = len(json.dumps({"name": version}) + "\n")
    return data_bytes + len(CODEX_SHIM) + marker


def versions(installs: list[CachedInstall]) -> list[str]:
    return [install.version for install in installs]


@pytest.fixture
def held_lock(install_cache: Path) -> Iterator[Path]:
    """The install lock of 0.3.0, held by another process until the test ends."""
    lock = lock_path(install_cache / "codex", "0.3.0")
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX);"
            "print('locked', flush=True); sys.stdin.read()",
            str(lock),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdin is not None
    assert holder.stdout.readline() == "locked\n"
    yield lock
    holder.stdin.close()
    holder.wait(timeout=10)
    holder.stdout.close()


def codex_probe(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codex_probe.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=REPO,
        env={**os.environ, "CODEX_PROBE_CACHE": str(root), "PYTHONPATH": str(REPO)},
    )


def test_list_orders_installs_by_last_use_most_recent_first(install_cache: Path) -> None:
    fake_install(install_cache, "0.1.0", last_used=NOW - 1 * DAY)
    fake_install(install_cache, "0.2.0", last_used=NOW - 3 * DAY)
    fake_install(install_cache, "0.3.0", last_used=NOW - 2 * DAY)
    installs = list_installs()
    assert versions(installs) == ["0.1.0", "0.3.0", "0.2.0"]
    assert installs[0].last_used == pytest.approx(NOW - 1 * DAY)


def test_an_install_without_a_stamp_counts_as_last_used_when_it_was_installed(
    install_cache: Path,
) -> None:
    fake_install(install_cache, "0.1.0", last_used=NOW - 5 * DAY)
    fake_install(install_cache, "0.2.0", installed_at=NOW - 2 * DAY)
    [unstamped, stamped] = list_installs()
    assert (unstamped.version, stamped.version) == ("0.2.0", "0.1.0")
    assert unstamped.last_used == pytest.approx(NOW - 2 * DAY)


def test_list_gives_each_install_its_folder_and_the_size_of_every_file_in_it(
    install_cache: Path,
) -> None:
    folder = fake_install(install_cache, "0.1.0", data_bytes=123_456)
    (folder / "schema").mkdir()
    (folder / "schema" / "union.json").write_bytes(b"{}" * 50)
    [listed] = list_installs()
    assert listed.path == folder
    assert listed.size_bytes == install_size(123_456, "0.1.0") + 100


def test_list_does_not_count_what_a_symlink_points_to(install_cache: Path, tmp_path: Path) -> None:
    folder = fake_install(install_cache, "0.1.0", data_bytes=10)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "big.bin").write_bytes(b"x" * 100_000)
    (folder / "linked").symlink_to(outside, target_is_directory=True)
    [listed] = list_installs()
    assert listed.size_bytes < 1000


def test_list_skips_unfinished_installs_and_hidden_leftovers(install_cache: Path) -> None:
    fake_install(install_cache, "0.1.0")
    unfinished = fake_install(install_cache, "0.2.0")
    (unfinished / MARKER).unlink()
    fake_install(install_cache, ".0.3.0.partial-abc")
    assert versions(list_installs()) == ["0.1.0"]


def test_a_cache_that_does_not_exist_yet_lists_no_installs(install_cache: Path) -> None:
    assert list_installs() == []
    assert prune_installs(0).removed == []


def test_prune_removes_the_least_recently_used_installs_beyond_keep(install_cache: Path) -> None:
    for age, version in enumerate(["0.4.0", "0.3.0", "0.2.0", "0.1.0"], start=1):
        fake_install(install_cache, version, last_used=NOW - age * DAY, data_bytes=age * 100)
    before = {install.version: install for install in list_installs()}
    removed = prune_installs(2).removed
    assert removed == [before["0.1.0"], before["0.2.0"]]
    assert versions(list_installs()) == ["0.4.0", "0.3.0"]
    folders = sorted(p.name for p in (install_cache / "codex").iterdir() if p.is_dir())
    assert folders == ["0.3.0", "0.4.0"]


def test_prune_keeping_as_many_as_there_are_removes_nothing(install_cache: Path) -> None:
    fake_install(install_cache, "0.1.0")
    fake_install(install_cache, "0.2.0")
    assert prune_installs(2).removed == []
    assert prune_installs(5).removed == []
    assert len(list_installs()) == 2


def test_prune_to_zero_removes_every_install(install_cache: Path) -> None:
    fake_install(install_cache, "0.1.0")
    fake_install(install_cache, "0.2.0")
    assert sorted(versions(prune_installs(0).removed)) == ["0.1.0", "0.2.0"]
    assert [p for p in install_cache.joinpath("codex").iterdir() if p.is_dir()] == []


def test_prune_never_removes_a_protected_version_and_removes_the_next_one_instead(
    install_cache: Path,
) -> None:
    fake_install(install_cache, "0.1.0", last_used=NOW - 3 * DAY)
    fake_install(install_cache, "0.2.0", last_used=NOW - 2 * DAY)
    fake_install(install_cache, "0.3.0", last_used=NOW - 1 * DAY)
    removed = prune_installs(1, protect={"0.1.0"}).removed
    assert versions(removed) == ["0.2.0", "0.3.0"]
    assert versions(list_installs()) == ["0.1.0"]


def test_prune_leaves_more_than_keep_when_only_protected_versions_remain(
    install_cache: Path,
) -> None:
    fake_install(install_cache, "0.1.0")
    fake_install(install_cache, "0.2.0")
    assert prune_installs(0, protect=["0.1.0", "0.2.0"]).removed == []
    assert len(list_installs()) == 2


def test_prune_skips_a_version_whose_lock_another_process_holds(
    install_cache: Path,
    held_lock: Path,
) -> None:
    fake_install(install_cache, "0.1.0", last_used=NOW - 1 * DAY)
    fake_install(install_cache, "0.2.0", last_used=NOW - 2 * DAY)
    fake_install(install_cache, "0.3.0", last_used=NOW - 3 * DAY)
    removed = prune_installs(2).removed
    assert versions(removed) == ["0.2.0"]
    assert versions(list_installs()) == ["0.1.0", "0.3.0"]
    assert held_lock.exists()


def test_a_lock_held_past_the_deadline_fails_with_one_line_naming_it_and_the_deadline(
    held_lock: Path,
) -> None:
    started = time.monotonic()
    with pytest.raises(LockTimeout) as caught, exclusive_lock(held_lock, timeout=1):
        pytest.fail("the lock was taken while another process held it")
    assert str(caught.value) == f"{held_lock} stayed locked for 1s"
    assert time.monotonic() - started >= 1


def test_prune_leaves_only_the_empty_lock_files_of_a_removed_version(install_cache: Path) -> None:
    fake_install(install_cache, "0.1.0")
    lock_path(install_cache / "codex", "0.1.0").touch()
    prune_installs(0)
    # The lock files stay: deleting one could let two processes install 0.1.0 at once.
    remaining = sorted(p.name for p in install_cache.joinpath("codex").iterdir())
    assert remaining == [".0.1.0.in-use", ".0.1.0.lock"]


def test_prune_removes_stale_partial_and_trash_leftovers_whose_lock_is_free(
    install_cache: Path,
) -> None:
    kept = fake_install(install_cache, "0.1.0")
    versions_dir = install_cache / "codex"
    for leftover in (".0.1.0.partial-k1ll3d", ".0.2.0.trash-0badf00d", ".0.9.0.partial-x"):
        (versions_dir / leftover / "node_modules").mkdir(parents=True)
        (versions_dir / leftover / "node_modules" / "big.bin").write_bytes(b"x" * 1000)
    lock_path(versions_dir, "0.1.0").touch()
    assert prune_installs(1).removed == []
    remaining = sorted(p.name for p in versions_dir.iterdir())
    assert remaining == [".0.1.0.lock", ".0.2.0.lock", ".0.9.0.lock", kept.name]


def test_prune_keeps_the_partial_folder_of_an_install_in_progress(
    install_cache: Path,
    held_lock: Path,
) -> None:
    building = install_cache / "codex" / ".0.3.0.partial-busy"
    (building / "node_modules").mkdir(parents=True)
    prune_installs(0)
    assert building.is_dir()


def test_prune_with_a_negative_keep_is_a_value_error(install_cache: Path) -> None:
    fake_install(install_cache, "0.1.0")
    with pytest.raises(ValueError, match="keep must be 0 or more"):
        prune_installs(-1)
    assert len(list_installs()) == 1


def test_installed_of_a_cached_version_stamps_it_as_just_used(install_cache: Path) -> None:
    folder = fake_install(install_cache, "0.1.0", installed_at=NOW - 9 * DAY)
    assert not (folder / LAST_USED).exists()
    assert installed("0.1.0", install_cache) is not None
    assert (folder / LAST_USED).stat().st_mtime == pytest.approx(time.time(), abs=60)
    [listed] = list_installs()
    assert listed.last_used == pytest.approx(time.time(), abs=60)


def test_install_of_a_cached_version_refreshes_an_old_stamp(install_cache: Path) -> None:
    folder = fake_install(install_cache, "0.1.0", last_used=NOW - 9 * DAY)
    assert install("0.1.0", install_cache).root == folder
    assert (folder / LAST_USED).stat().st_mtime == pytest.approx(time.time(), abs=60)


def test_a_stamp_that_cannot_be_written_does_not_fail_installed(
    install_cache: Path,
    tmp_path: Path,
) -> None:
    folder = fake_install(install_cache, "0.1.0")
    (folder / LAST_USED).symlink_to(tmp_path / "no-such-folder" / "stamp")
    assert installed("0.1.0", install_cache) == Installation("0.1.0", folder)


def test_cache_list_json_lists_installs_sizes_and_utc_last_use(install_cache: Path) -> None:
    fake_install(install_cache, "0.1.0", last_used=1_700_000_000, data_bytes=2000)
    fake_install(install_cache, "0.2.0", last_used=1_700_000_600, data_bytes=3000)
    done = codex_probe(install_cache, "cache", "list", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report == {
        "root": str(install_cache),
        "installs": [
            {
                "version": "0.2.0",
                "path": str(install_cache / "codex" / "0.2.0"),
                "size_bytes": install_size(3000, "0.2.0"),
                "last_used": "2023-11-14T22:23:20+00:00",
            },
            {
                "version": "0.1.0",
                "path": str(install_cache / "codex" / "0.1.0"),
                "size_bytes": install_size(2000, "0.1.0"),
                "last_used": "2023-11-14T22:13:20+00:00",
            },
        ],
        "total_bytes": install_size(3000, "0.2.0") + install_size(2000, "0.1.0"),
        "npm_cache": {"folder": str(install_cache / "npm"), "size_bytes": 0},
    }


def test_cache_list_prints_a_table_with_human_sizes_and_a_total(install_cache: Path) -> None:
    fake_install(install_cache, "0.1.0", data_bytes=1_500_000)
    done = codex_probe(install_cache, "cache", "list")
    assert done.returncode == 0, done.stderr
    header, row, total, npm = done.stdout.splitlines()
    assert header.split() == ["VERSION", "SIZE", "LAST", "USED", "PATH"]
    assert row.startswith("0.1.0") and " 1.5 MB " in row
    assert row.endswith(str(install_cache / "codex" / "0.1.0"))
    assert total == f"total: 1 install, 1.5 MB in {install_cache}"
    npm_folder = install_cache / "npm"
    assert npm == f"npm's downloads for them: 0 B in {npm_folder} (cache prune removes it)"


def test_cache_prune_keep_one_removes_all_but_the_most_recently_used(install_cache: Path) -> None:
    fake_install(install_cache, "0.1.0", last_used=NOW - 1 * DAY, data_bytes=2_000_000)
    fake_install(install_cache, "0.2.0", last_used=NOW - 2 * DAY, data_bytes=2_000_000)
    fake_install(install_cache, "0.3.0", last_used=NOW - 3 * DAY, data_bytes=2_000_000)
    done = codex_probe(install_cache, "cache", "prune", "--keep-installs", "1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "removed 0.3.0  2.0 MB",
        "removed 0.2.0  2.0 MB",
        "freed 4.0 MB (2 installs removed)",
    ]
    assert versions(list_installs()) == ["0.1.0"]


def test_cache_prune_json_reports_what_it_removed_and_freed(install_cache: Path) -> None:
    fake_install(install_cache, "0.1.0", data_bytes=500)
    done = codex_probe(install_cache, "cache", "prune", "--keep-installs", "0", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [entry["version"] for entry in report["removed"]] == ["0.1.0"]
    assert report["freed_bytes"] == install_size(500, "0.1.0")
    assert report["keep"] == 0


def test_cache_prune_of_an_empty_cache_frees_nothing_and_succeeds(install_cache: Path) -> None:
    done = codex_probe(install_cache, "cache", "prune")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "freed 0 B (0 installs removed)\n"


@pytest.mark.parametrize(
    ("keep", "problem"), [("-1", "-1 is negative"), ("four", "'four' is not a whole number")]
)
def test_cache_prune_with_a_bad_keep_exits_two_with_one_line_naming_it(
    install_cache: Path,
    keep: str,
    problem: str,
) -> None:
    fake_install(install_cache, "0.1.0")
    done = codex_probe(install_cache, "cache", "prune", "--keep-installs", keep)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--keep" in done.stderr and problem in done.stderr
    assert done.stdout == ""
    assert len(list_installs()) == 1


@pytest.mark.parametrize("action", ["list", "prune"])
def test_cache_commands_on_a_cache_root_that_is_a_file_exit_two_with_one_line(
    tmp_path: Path,
    action: str,
) -> None:
    not_a_folder = tmp_path / "cache"
    not_a_folder.write_text("")
    done = codex_probe(not_a_folder, "cache", action)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and str(not_a_folder) in done.stderr
    assert "Traceback" not in done.stderr


def npm_downloads(cache: Path, data_bytes: int) -> Path:
    """What npm leaves in codex-probe's npm cache after an install: content and an index."""
    folder = cache / "npm" / "_cacache" / "content-v2"
    folder.mkdir(parents=True)
    (folder / "blob").write_bytes(b"x" * data_bytes)
    return cache / "npm"


def test_cache_prune_removes_npm_s_downloads_of_codex_probe_and_says_how_much(
    install_cache: Path, tmp_path: Path
) -> None:
    npm = npm_downloads(install_cache, 3_000_000)
    users_own = tmp_path / "home" / ".npm"  # npm's cache of the user's packages
    users_own.mkdir(parents=True)
    done = codex_probe(install_cache, "cache", "prune")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"removed npm's downloads  3.0 MB ({npm})",
        "freed 3.0 MB (0 installs removed)",
    ]
    assert not npm.exists() and users_own.is_dir()


def test_an_npm_cache_the_caller_chose_is_theirs_and_prune_leaves_it(
    install_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    npm_downloads(install_cache, 1000)
    chosen = tmp_path / "their-npm-cache"
    monkeypatch.setenv("NPM_CONFIG_CACHE", str(chosen))
    assert npm_cache_env() == {}  # npm keeps the cache they chose
    done = codex_probe(install_cache, "cache", "prune", "--json")
    assert json.loads(done.stdout)["npm_cache"] == {
        "folder": str(chosen),
        "freed_bytes": 0,
        "kept": "npm's cache is the one you chose; not ours",
    }


def test_an_npm_cache_a_running_process_uses_stays(install_cache: Path) -> None:
    npm = npm_downloads(install_cache, 1000)
    with subprocess.Popen(
        [sys.executable, "-c", HOLD_NPM_CACHE, str(install_cache)],
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline() == f"held {npm}\n"
            done = codex_probe(install_cache, "cache", "prune")
            assert f"kept npm's cache {npm}: in use by a running process" in done.stdout
            assert npm.is_dir()
        finally:
            holder.kill()
    gone = codex_probe(install_cache, "cache", "prune")  # the holder ended: its hold too
    assert f"removed npm's downloads  1.0 kB ({npm})" in gone.stdout


# Another process that runs npm: it holds codex-probe's npm cache until it exits.
HOLD_NPM_CACHE = """
import os, sys, time
os.environ["CODEX_PROBE_CACHE"] = sys.argv[1]
from codex_probe.harness.codex.npm_cache import npm_cache_env
print("held", npm_cache_env()["npm_config_cache"], flush=True)
time.sleep(120)
"""
