"""Every child codex-probe starts gets only what it needs: never a secret of the caller's.

The canary tests plant secret-looking values in this process's environment, start each
child the way the tool does, and read /proc/PID/environ of it, and of every process it
starts in turn, while they run.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_probe.harness import child_env
from codex_probe.harness.codex.install import Installation, run_codex_tool
from codex_probe.harness.codex.npm import run_npm
from codex_probe.harness.codex.npm_tarballs import CachedTarball, unpack_tarball
from codex_probe.harness.codex.progress import InstallProgress
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.reporting.allure_install import install_allure
from codex_probe.reporting.allure_report import generate_html
from codex_probe.reporting.browser import dump_dom, find_browser
from codex_probe.rig.backends import make_backend
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.wiretap import Wiretap
from tests.child_processes import (
    Seen,
    kill_all,
    leaked,
    plant_canaries,
    snapshot,
    watch_while,
)

CHILD_DEADLINE_S = 120.0


@pytest.fixture
def canaries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return plant_canaries(monkeypatch)


# ----- the allow-lists -------------------------------------------------------------------


def test_an_allow_list_passes_only_the_names_it_lists_and_never_a_secret_a_prefix_matches() -> None:
    source = {
        "PATH": "/bin",
        "NPM_CONFIG_REGISTRY": "https://registry.example",
        "NPM_CONFIG__AUTHTOKEN": "secret",
        "npm_config_password": "secret",
        "NPM_TOKEN": "secret",
        "OPENAI_API_KEY": "secret",
    }
    env = child_env.child_env(child_env.NPM, {"OWN": "1"}, source=source)
    assert env == {"PATH": "/bin", "NPM_CONFIG_REGISTRY": "https://registry.example", "OWN": "1"}


def test_npm_keeps_the_machines_registry_setup_proxies_and_certificates() -> None:
    source = {
        "HOME": "/home/me",
        "TMPDIR": "/var/tmp",
        "NODE_EXTRA_CA_CERTS": "/etc/ssl/ca.pem",
        "SSL_CERT_FILE": "/etc/ssl/cert.pem",
        "https_proxy": "http://proxy:3128",
        "HTTPS_PROXY": "http://proxy:3128",
        "NO_PROXY": "localhost",
        "npm_config_cache": "/var/cache/npm",
        "GITHUB_TOKEN": "secret",
        "CI_JOB_TOKEN": "secret",
    }
    env = child_env.child_env(child_env.NPM, source=source)
    assert sorted(env) == sorted(set(source) - {"GITHUB_TOKEN", "CI_JOB_TOKEN"})


def test_allure_keeps_the_names_of_the_ci_run_and_no_token_of_it() -> None:
    source = {
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_REPOSITORY": "o/r",
        "GITHUB_RUN_ID": "1",
        "GITHUB_TOKEN": "secret",
        "GITHUB_PAT": "secret",
        "CI_JOB_TOKEN": "secret",
        "CI_REGISTRY_PASSWORD": "secret",
    }
    env = child_env.child_env(child_env.ALLURE, source=source)
    assert sorted(env) == ["CI", "GITHUB_ACTIONS", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"]


# ----- canaries: each child, running --------------------------------------------------------


def assert_clean(seen: list[Seen], canaries: list[str], *, ran: str) -> None:
    assert any(one.runs(ran) for one in seen), [one.cmdline for one in seen]
    assert leaked(seen, canaries) == []


@pytest.mark.real
async def test_the_real_codex_app_server_holds_no_canary(
    default_codex: Installation, canaries: list[str]
) -> None:
    backend = make_backend("real", default_codex.version)
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url) as home:
            async with await backend.open(home):
                seen = snapshot()
    # The Rust binary of the platform package (started as its npm launcher would start it,
    # harness/codex/direct_launch.py): the process that does the work.
    native = [one for one in seen if one.exe.endswith("/codex") and "vendor" in one.exe]
    assert native, [one.exe for one in seen]
    assert_clean(seen, canaries, ran="vendor")


async def test_the_fake_app_server_holds_no_canary(canaries: list[str]) -> None:
    backend = make_backend("fake", DEFAULT_CODEX_VERSION)
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url) as home:
            async with await backend.open(home):
                seen = snapshot()
    assert_clean(seen, canaries, ran="fake_appserver")


def test_npm_and_what_it_runs_hold_no_canary(tmp_path: Path, canaries: list[str]) -> None:
    # `npm exec -c` runs a command with npm's own environment, offline: long enough to read.
    seen = watch_while(
        lambda: run_npm(["exec", "--call", "sleep 30"], cwd=tmp_path, timeout=60),
        until=lambda seen: any(one.exe.endswith("/sleep") for one in seen),
        deadline_s=CHILD_DEADLINE_S,
        then=lambda seen: kill_all([one for one in seen if one.exe.endswith("/sleep")]),
    )
    assert [one for one in seen if one.exe.endswith("/sleep")]
    assert_clean(seen, canaries, ran="npm")


def test_the_unpacker_of_npm_s_tarballs_holds_no_canary(
    tmp_path: Path, canaries: list[str]
) -> None:
    # A named pipe for a tarball: the unpacker waits on it, long enough to be read.
    tarball = tmp_path / "tarball"
    os.mkfifo(tarball)
    into = tmp_path / "into"
    cached = CachedTarball("https://registry.example/t.tgz", tarball, "00")

    # The unpacker itself, not the parent-death helper that execs it (the helper's argv
    # names the module too): killed as seen, a helper that has exec'd since is no longer
    # what was seen, is spared, and leaves the unpacker waiting on the pipe.
    def unpacker(one: Seen) -> bool:
        return one.runs("codex_probe.harness.codex.unpack") and not one.runs("parent_death")

    seen = watch_while(
        lambda: unpack_tarball(cached, into, InstallProgress("a tarball", into)),
        until=lambda seen: any(unpacker(one) for one in seen),
        deadline_s=CHILD_DEADLINE_S,
        then=lambda seen: kill_all([one for one in seen if unpacker(one)]),
    )
    assert_clean(seen, canaries, ran="codex_probe.harness.codex.unpack")


@pytest.mark.real
def test_a_one_shot_codex_tool_holds_no_canary(
    default_codex: Installation, canaries: list[str]
) -> None:
    # A one-shot tool the way `codex --version` runs, but one that stays up to be read.
    seen = watch_while(
        lambda: run_codex_tool(
            default_codex.binary, ["app-server", "--listen", "ws://127.0.0.1:0"], timeout=60
        ),
        until=lambda seen: any("vendor" in one.exe for one in seen),
        deadline_s=CHILD_DEADLINE_S,
        then=kill_all,
    )
    assert_clean(seen, canaries, ran="vendor")
    assert [one for one in seen if "vendor" in one.exe and one.exe.endswith("/codex")]


@pytest.fixture
def stalled_page() -> Iterator[str]:
    """A page on 127.0.0.1 that is never answered while the test runs (then it is closed)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def hold() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(connection)

    holder = threading.Thread(target=hold, name="stalled-page", daemon=True)
    holder.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/page"
    finally:
        stop.set()
        holder.join(timeout=5)
        for connection in held:
            connection.close()
        server.close()


def test_chromium_and_its_helper_processes_hold_no_canary(
    stalled_page: str, canaries: list[str]
) -> None:
    find_browser()  # the tests need Chromium (apt-get install chromium), as the README says
    seen = watch_while(
        lambda: dump_dom(stalled_page, timeout=60),
        # The renderer is up: the page is being loaded, every kind of helper has started.
        until=lambda seen: any(one.runs("--type=renderer") for one in seen),
        deadline_s=CHILD_DEADLINE_S,
        then=kill_all,
    )
    assert_clean(seen, canaries, ran="--user-data-dir=")


def test_allure_and_what_it_runs_hold_no_canary(tmp_path: Path, canaries: list[str]) -> None:
    results = tmp_path / "allure-results"
    results.mkdir()
    now = int(time.time() * 1000)
    result = {
        "uuid": str(uuid.uuid4()),
        "name": "a finding",
        "fullName": "probes.a_finding",
        "status": "passed",
        "start": now,
        "stop": now + 1,
        "labels": [],
    }
    (results / f"{result['uuid']}-result.json").write_text(json.dumps(result))
    allure = install_allure()
    # Watched from start to end: whatever Allure runs in turn is read too.
    seen = watch_while(
        lambda: generate_html(allure, results, tmp_path / "html", timeout=120),
        deadline_s=CHILD_DEADLINE_S,
    )
    assert (tmp_path / "html" / "index.html").is_file()
    assert [one for one in seen if one.runs("allure") and one.exe.endswith("/node")]
    assert_clean(seen, canaries, ran="allure")
