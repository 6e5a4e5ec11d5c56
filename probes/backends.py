"""Backends: the real codex-cli of a version, or the fake imitating it. Same command line.

Every scenario, probe and conformance check runs on a Backend; both start
`BINARY app-server` with an isolated home, so their observations are comparable.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fake_appserver.launcher import write_launcher
from fake_appserver.profile import load_profile
from harness.codex import ensure_schema, install
from harness.codex.appserver import open_app_server
from harness.codex.cache import cache_root
from harness.jsonrpc import JsonRpcClient, Transcript
from probes.homes import IsolatedHome

BackendKind = Literal["real", "fake"]
BACKEND_KINDS: tuple[BackendKind, ...] = ("real", "fake")


class BackendError(ValueError):
    """An unknown backend kind, or a version the backend cannot provide."""


@dataclass(frozen=True)
class Backend:
    kind: BackendKind
    version: str
    binary: Path
    schema_dir: Path
    script: Path | None = None

    @property
    def label(self) -> str:
        return f"{self.kind}-{self.version}"

    async def open(
        self,
        home: IsolatedHome,
        *,
        transcript: Transcript | None = None,
        initialize: bool = True,
    ) -> JsonRpcClient:
        """A new app-server process on `home`, initialized unless asked not to."""
        client, _ = await open_app_server(
            self.binary,
            env=home.env(),
            cwd=home.workdir,
            transcript=transcript,
            initialize=initialize,
        )
        return client

    def with_script(self, script: Path) -> Backend:
        """The same backend with a fault script (the fake only: the real one cannot)."""
        if self.kind != "fake":
            raise BackendError("fault scripts need the fake backend")
        return make_backend("fake", self.version, script=script)


def make_backend(kind: str, version: str, *, script: Path | None = None) -> Backend:
    """The backend of `kind` for codex-cli `version` (installing or profiling it as needed)."""
    installation = install(version)
    schema = ensure_schema(installation)
    if kind == "real":
        if script is not None:
            raise BackendError("fault scripts need the fake backend")
        return Backend("real", installation.version, installation.binary, schema)
    if kind == "fake":
        profile = load_profile(installation.version)
        # One launcher per profile and script, kept in the cache like a real install.
        suffix = (
            hashlib.sha256(str(script.resolve()).encode()).hexdigest()[:12] if script else "plain"
        )
        folder = cache_root() / "fake" / f"{profile.version}-{suffix}"
        binary = write_launcher(folder, profile=profile.version, script=script)
        return Backend("fake", profile.version, binary, schema, script)
    raise BackendError(f"unknown backend {kind!r}; backends: {', '.join(BACKEND_KINDS)}")
