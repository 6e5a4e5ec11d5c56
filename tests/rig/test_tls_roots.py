"""codex's TLS roots: the one certificate each home hands it (rig/tls_roots.py)."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.rig.backends import make_backend
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.session import Session
from codex_probe.rig.wiretap import Wiretap

# What 0.171.0 says of the roots of each HTTP client it builds (on stderr, at info).
ROOTS_LOG = "codex_http_client::custom_ca=info"
LOADED = "loaded certificates from custom CA bundle"
SYSTEM = "using system root certificates"


def test_codex_is_handed_one_self_signed_root_kept_in_its_home(tmp_path: Path) -> None:
    home = IsolatedHome("http://127.0.0.1:9/v1", parent_dir=tmp_path)
    roots = Path(home.env()["SSL_CERT_FILE"])
    assert roots == home.tls_roots and roots.parent == home.root
    context = ssl.create_default_context(cafile=str(roots))
    [root] = context.get_ca_certs()
    assert root["subject"] == root["issuer"]
    assert roots.read_text(encoding="ascii").count("BEGIN CERTIFICATE") == 1


@pytest.mark.real
async def test_real_codex_builds_its_model_client_on_the_homes_one_root_not_the_machines(
    tmp_path: Path, default_codex: Installation
) -> None:
    backend = make_backend("real", DEFAULT_CODEX_VERSION)
    async with Wiretap() as tap:
        home = IsolatedHome(tap.base_url, parent_dir=tmp_path, rust_log=ROOTS_LOG)
        session = Session(backend, tap, home)
        try:
            await session.open()
            thread = await session.start_thread()
            await session.run_turn(thread["id"], "hello")
        finally:
            await session.close()
    said = session.stderr_tails()
    loaded = f'{LOADED} source_env="SSL_CERT_FILE" ca_path={home.tls_roots} certificate_count=1'
    assert loaded in said
    assert SYSTEM not in said
