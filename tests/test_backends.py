"""Real and fake backends open the same way and answer the same handshake."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.rig.backends import BackendError, make_backend
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.wiretap import Wiretap

pytestmark = pytest.mark.real


@pytest.mark.parametrize("kind", ["real", "fake"])
async def test_both_backends_start_an_initialized_app_server_on_an_isolated_home(
    kind: str,
    tmp_path: Path,
    default_codex: Installation,
) -> None:
    backend = make_backend(kind, DEFAULT_CODEX_VERSION)
    assert backend.label == f"{kind}-{DEFAULT_CODEX_VERSION}"
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url, parent_dir=tmp_path) as home:
            client = await backend.open(home)
            async with client:
                started = await client.request("thread/start", {"cwd": str(home.workdir)})
            assert started["thread"]["cliVersion"] == DEFAULT_CODEX_VERSION


def test_an_unknown_backend_or_a_script_on_the_real_one_is_refused(
    tmp_path: Path,
    default_codex: Installation,
) -> None:
    with pytest.raises(BackendError, match="unknown backend 'docker'"):
        make_backend("docker", DEFAULT_CODEX_VERSION)
    with pytest.raises(BackendError, match="fault scripts need the fake backend"):
        make_backend("real", DEFAULT_CODEX_VERSION, script=tmp_path / "s.jsonl")
