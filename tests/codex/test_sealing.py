"""Sealed launches: codex cannot see the host's /etc/codex or a `.git` above its work dir.

A system config is only ever planted inside a throwaway mount namespace whose /etc is an
overlay on a tmpfs (`unshare`, util-linux): the host's /etc is never written.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness.codex import seal
from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.seal import (
    EXIT_SEAL_FAILED,
    SYSTEM_CONFIG_DIR,
    Sealing,
    Support,
    describe_sealing,
    prepare,
    seal_launch,
)
from codex_probe.probes.releases.repro.script.sealing import SEAL_FILE
from codex_probe.rig.backends import make_backend
from tests.codex.planted_config import observe
from tests.probes.repro.bundles import bundled

REPO = Path(__file__).resolve().parents[2]
PLANT_SCRIPT = (
    'set -e; mount -t tmpfs tmpfs "$1"; mkdir "$1/upper" "$1/work"; '
    'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/upper,workdir=$1/work" /etc; '
    'shift; exec "$@"'
)
RunPlanted = Callable[..., dict[str, Any]]


def mounts() -> list[str]:
    """This (the host's) mount table, without the mount ids that change with every mount."""
    return sorted(
        line.split(" ", 2)[2] for line in Path("/proc/self/mountinfo").read_text().splitlines()
    )


@pytest.fixture
def sealing_here() -> None:
    support = seal.namespace_support()
    if not support.available:
        pytest.skip(f"this host cannot seal: {support.how}")


@pytest.fixture
def repo_above(tmp_path: Path) -> Path:
    """tmp/repo/{.git/HEAD, README, link -> README, sub/work}: the work dir, two below a .git."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (repo / "README").write_text("the host's readme\n")
    (repo / "link").symlink_to("README")
    work = repo / "sub" / "work"
    work.mkdir(parents=True)
    return work


@pytest.fixture
def fresh_record(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seal, "_record", seal._Record())


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=30, check=False)


def test_a_sealed_launch_hides_a_git_folder_above_the_work_dir_and_keeps_everything_else(
    sealing_here: None, repo_above: Path
) -> None:
    before = mounts()
    script = "ls -A ../..; cat ../../link; echo kept > written; pwd"
    argv, sealing = seal_launch(["sh", "-c", script], cwd=repo_above)
    done = run(argv, repo_above)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n") == [
        "README",
        "link",
        "sub",
        "the host's readme",
        str(repo_above),
        "",
    ]
    assert sealing == Sealing(True, sealing.how, [])
    assert f"{repo_above.parent.parent / '.git'} hidden" in sealing.how
    # What codex writes in its work dir reaches the host; the host keeps its .git and mounts.
    assert (repo_above / "written").read_text() == "kept\n"
    assert (repo_above.parent.parent / ".git" / "HEAD").is_file()
    assert mounts() == before


def test_a_sealed_launch_keeps_the_pid_and_the_environment_it_is_given(
    sealing_here: None, tmp_path: Path
) -> None:
    argv, _ = seal_launch(["sh", "-c", 'echo "$$ $ONLY_THIS"; env | wc -l'], cwd=tmp_path)
    process = subprocess.Popen(
        argv, cwd=tmp_path, stdout=subprocess.PIPE, text=True, env={"ONLY_THIS": "yes"}
    )
    try:
        stdout, _ = process.communicate(timeout=30)
    finally:
        process.kill()
        process.wait(timeout=10)
    # exec, not a child: the pid the harness ends is the one that runs.
    first, count = stdout.split("\n")[:2]
    assert first == f"{process.pid} yes"
    assert int(count) <= 3  # ONLY_THIS, and what sh sets itself (PWD, SHLVL)


def test_an_unsealed_launch_runs_as_given_and_lists_the_git_folders_codex_could_see(
    repo_above: Path,
) -> None:
    argv, sealing = prepare(["codex", "app-server"], str(repo_above), Support(False, "no way"))
    assert argv == ["codex", "app-server"]
    assert sealing.sealed is False
    assert sealing.how == "unsealed: no way"
    assert str(repo_above.parent.parent / ".git") in sealing.visible


def test_describe_sealing_sums_up_every_launch_for_the_verdict(
    fresh_record: None, repo_above: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seal_launch(["true"], cwd=tmp_path)
    monkeypatch.setattr(seal, "namespace_support", lambda: Support(False, "no way"))
    seal_launch(["true"], cwd=repo_above)
    described = json.loads(json.dumps(describe_sealing()))
    assert described["sealed"] is False
    assert described["launches"] == 2
    assert str(repo_above.parent.parent / ".git") in described["visible"]
    assert "unsealed: no way" in described["how"]
    assert "127.0.0.1" in described["network"]


def test_before_any_launch_describe_sealing_says_what_a_launch_would_get(
    fresh_record: None,
) -> None:
    described = describe_sealing()
    assert described["launches"] == 0
    assert described["sealed"] == seal.namespace_support().available


def test_a_plan_the_helper_cannot_carry_out_ends_it_before_anything_runs(
    sealing_here: None, tmp_path: Path
) -> None:
    helper = [sys.executable, *seal.PYTHON_FLAGS, seal.__file__]
    absent = str(tmp_path / "absent")
    done = run([*helper, str(tmp_path), "--mask", absent, "--", "touch", "ran"], tmp_path)
    assert done.returncode == EXIT_SEAL_FAILED
    assert done.stderr.startswith("codex-probe seal: ") and absent in done.stderr
    assert not (tmp_path / "ran").exists()
    assert run([*helper, "--", "true"], tmp_path).returncode == 2


# ----- a system config planted in a throwaway namespace -------------------------------------


@pytest.fixture
def run_planted(tmp_path: Path) -> RunPlanted:
    """Run `python -m tests.codex.planted_config ARGS` where /etc is an overlay of its own."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("planting a system config needs `unshare` (util-linux)")
    as_root = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    plant = tmp_path / "plant"
    plant.mkdir()
    prefix = [unshare, *as_root, "--mount", "--propagation", "private", "--"]
    prefix += ["/bin/sh", "-c", PLANT_SCRIPT, "plant", str(plant)]
    tried = subprocess.run(
        [*prefix, "test", "-w", "/etc"], capture_output=True, text=True, timeout=30, check=False
    )
    if tried.returncode != 0:
        pytest.skip(f"no throwaway namespace with an overlay /etc here: {tried.stderr.strip()}")
    host_had_it = os.path.lexists(SYSTEM_CONFIG_DIR)

    def run_body(*args: str, timeout: float) -> dict[str, Any]:
        done = subprocess.run(
            [*prefix, sys.executable, "-m", "tests.codex.planted_config", *args],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert os.path.lexists(SYSTEM_CONFIG_DIR) == host_had_it  # the host was not touched
        document: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
        return document

    return run_body


def test_an_unsealed_launch_reports_the_planted_system_config_and_a_sealed_one_sees_none(
    sealing_here: None, run_planted: RunPlanted
) -> None:
    document = run_planted("visible", timeout=60)
    planted = document["planted"]
    assert planted == [
        f"{SYSTEM_CONFIG_DIR}/config.toml",
        f"{SYSTEM_CONFIG_DIR}/managed_config.toml",
    ]
    assert document["unsealed"]["sealed"] is False
    assert document["unsealed"]["visible"] == planted
    assert document["sees"]["unsealed"] == ["config.toml", "managed_config.toml"]
    assert document["sealed"] == {
        "sealed": True,
        "how": document["sealed"]["how"],
        "visible": [],
    }
    assert f"an empty read-only tmpfs over {SYSTEM_CONFIG_DIR}" in document["sealed"]["how"]
    assert document["sees"]["sealed"] == []


@pytest.mark.real
def test_a_sealed_real_codex_ignores_a_planted_model_provider_and_observes_the_same(
    sealing_here: None, run_planted: RunPlanted, default_codex: Installation
) -> None:
    baseline = asyncio.run(observe(make_backend("real", default_codex.version)))
    assert "broken" not in baseline
    document = run_planted("start", default_codex.version, timeout=600)
    # Unsealed, the planted managed_config.toml takes the model requests to the decoy:
    # the verdict would have changed silently.
    assert document["decoy_requests_unsealed"] > 0
    assert document["unsealed"] != baseline
    # Sealed, codex reaches our wiretap with our markers, exactly as on a clean host.
    assert document["decoy_requests_sealed"] == 0
    assert document["sealed"] == baseline
    turn_1 = next(step for step in baseline["steps"] if step["label"] == "turn-1")
    assert "USER-1" in json.dumps(turn_1["model_requests"])
    # And the run's description says one launch could see the planted config.
    assert document["sealing"]["sealed"] is False
    assert f"{SYSTEM_CONFIG_DIR}/managed_config.toml" in document["sealing"]["visible"]


@pytest.mark.real
@pytest.mark.starts_early  # 13 s, 10 of them the unsealed run's deadline
def test_a_bundle_reproduces_under_a_planted_system_config_only_with_its_seal(
    sealing_here: None, run_planted: RunPlanted, default_codex: Installation, tmp_path: Path
) -> None:
    real = make_backend("real", default_codex.version)
    made = bundled(real, "start-applies-instructions", tmp_path / "b", tmp_path)
    finding, folder = asyncio.run(made)
    assert (folder / SEAL_FILE).read_bytes() == Path(seal.__file__).read_bytes()
    document = run_planted("reproduce", str(folder), str(real.binary), timeout=600)
    # With its seal.py, codex never sees the planted provider: the finding reproduces.
    with_seal = document["with_seal"]
    assert with_seal["exit"] == 0, with_seal["stderr"]
    assert with_seal["result"]["outcome"]["verdict"] == finding.verdict.value
    assert with_seal["result"]["sealing"]["sealed"] is True
    # Without it, the planted provider takes codex's model requests, and the run says why.
    without_seal = document["without_seal"]
    assert without_seal["exit"] != 0, without_seal
    assert without_seal["result"].get("sealing", {}).get("sealed") is not True
