"""Backends: the real codex-cli of a version, or the fake imitating it. Same command line.

Every scenario, probe and conformance check runs on a Backend; both start
`BINARY app-server` with an isolated home, sealed the same way (`harness.codex.seal`, in
`open_app_server`), so their observations are comparable.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from codex_probe.fake_appserver.launcher import launcher_options, warm_fake, write_launcher
from codex_probe.fake_appserver.profile import ProfileError, load_profile, profile_for
from codex_probe.harness.codex.appserver import WarmLaunch, open_app_server
from codex_probe.harness.codex.install import binary_version, install
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.jsonrpc.client import JsonRpcClient
from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.rig.defaults import BACKEND_KINDS, BackendKind
from codex_probe.rig.home_databases import seed_databases
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.launchers import launcher_folder


class BackendError(ValueError):
    """An unknown backend kind, or a version the backend cannot provide."""


@dataclass(frozen=True)
class Backend:
    kind: BackendKind
    version: str
    binary: Path
    # The protocol schema the binary generated; None for a binary given by path.
    schema_folder: Path | None
    script: Path | None = None
    # The fake's profile file (checked in or learned); None for the real binary.
    profile: Path | None = None

    @property
    def schema_dir(self) -> Path:
        if self.schema_folder is None:
            raise BackendError(f"{self.binary} was given by path: it has no cached schema")
        return self.schema_folder

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
        """A new app-server process on `home`, initialized unless asked not to. The real
        one runs on one CPU (`harness.codex.one_cpu`); the fake, one Python thread, is left
        to the kernel to place, and is a fork of its warm copy where the host allows. A new
        home gets the real binary's first-start databases (`rig.home_databases`)."""
        if self.kind == "real":
            await seed_databases(self.binary, home.codex_home)
        client, _ = await open_app_server(
            self.binary,
            env=home.env(),
            cwd=home.workdir,
            transcript=transcript,
            initialize=initialize,
            one_cpu=self.kind == "real",
            warm=self._warm(),
        )
        return client

    def _warm(self) -> WarmLaunch | None:
        """The fake as a fork of its warm copy, where this host can (its launcher else)."""
        if self.kind != "fake" or self.profile is None or (forks := warm_fake()) is None:
            return None
        options = launcher_options(profile=str(self.profile), script=self.script)
        return WarmLaunch(forks, tuple(options))

    def with_script(self, script: Path) -> Backend:
        """The same backend with a fault script (the fake only: the real one cannot)."""
        if self.kind != "fake":
            raise BackendError("fault scripts need the fake backend")
        return make_backend("fake", self.version, script=script, profile=self.profile)


def backend_at(binary: Path) -> Backend:
    """The real app-server at `binary` (a codex outside the cache, as a measuring tool
    takes it): its version is what it reports; it has no cached schema."""
    return Backend("real", binary_version(binary), binary, None)


def make_backend(
    kind: str, version: str, *, script: Path | None = None, profile: Path | None = None
) -> Backend:
    """The backend of `kind` for codex-cli `version` (installing it as needed).

    The fake imitates `profile` (a profile file), by default the version's checked-in one;
    a version without one needs a learned profile (`codex-probe learn`).
    """
    installation = install(version)
    schema = ensure_schema(installation)
    if kind == "real":
        if script is not None:
            raise BackendError("fault scripts need the fake backend")
        return Backend("real", installation.version, installation.binary, schema)
    if kind == "fake":
        profile_file = profile_for(installation.version, given=profile)
        if profile_file is None:
            raise BackendError(
                f"the fake has no checked-in profile for codex-cli {installation.version}; "
                f"learn one: codex-probe learn --codex {installation.version}"
            )
        try:
            load_profile(path=profile_file)  # a broken profile fails here, not in the fake
        except ProfileError as error:
            raise BackendError(str(error)) from None
        profile_file = profile_file.resolve()
        # One launcher per profile and script, in this process's folder (rig/launchers.py).
        key = f"{profile_file}\n{script.resolve() if script else ''}"
        suffix = hashlib.sha256(key.encode()).hexdigest()[:12]
        folder = launcher_folder() / f"{installation.version}-{suffix}"
        binary = write_launcher(folder, profile=str(profile_file), script=script)
        return Backend("fake", installation.version, binary, schema, script, profile_file)
    raise BackendError(f"unknown backend {kind!r}; backends: {', '.join(BACKEND_KINDS)}")
