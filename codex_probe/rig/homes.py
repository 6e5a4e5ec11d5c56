"""Isolated homes: a fresh HOME, CODEX_HOME and working directory per scenario.

codex reads and writes its home (config.toml, sessions/, sqlite state, logs), so
every scenario gets its own under a temp dir, and the environment handed to codex
is built from scratch: nothing of the caller's (API keys, CODEX_* variables, proxy
settings) leaks in, and codex never sees the user's ~/.codex. Nor does it see the host's
/etc/codex or a .git above its working directory: every app-server starts sealed
(`harness.codex.seal`).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self, TypeAlias

import tomli_w

from codex_probe.harness.child_env import CODEX, child_env, search_path
from codex_probe.harness.temp_folders import make_folder, removed
from codex_probe.rig.lsb_release import answered_path
from codex_probe.rig.tls_roots import ENV_NAME as TLS_ROOTS_ENV
from codex_probe.rig.tls_roots import write_roots

# What config.toml holds: scalars, arrays of scalars, nested tables.
TomlScalar: TypeAlias = str | int | float | bool
TomlValue: TypeAlias = "TomlScalar | Sequence[TomlScalar] | Mapping[str, TomlValue]"

DEFAULT_PROVIDER_ID = "mock"
DEFAULT_PROVIDER_NAME = "mock"
# codex takes its remote-compaction path only for a provider *named* "OpenAI"
# (0.120: POST .../responses/compact; 0.171: a streamed `compaction_trigger`).
OPENAI_PROVIDER_NAME = "OpenAI"
DEFAULT_MODEL = "mock-model"
# The locale and time zone codex runs in, whatever the caller's.
CODEX_LOCALE = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC"}
# Beside home/ and work/: programs answered for codex (rig/lsb_release.py).
ANSWERS_FOLDER = "answers"

# Settings that stop codex from reaching the network on its own. Measured with
# strace on 0.120.0 and 0.171.0 (docs/observations/): `features.plugins = false`
# alone stops every lookup codex made unprompted (api.github.com, chatgpt.com).
# The others switch off features `codex features list` shows as on by default and
# that talk to OpenAI services; codex ignores keys it does not know, silently.
NETWORK_QUIET_SETTINGS: dict[str, TomlValue] = {
    "check_for_update_on_startup": False,
    "analytics": {"enabled": False},
    "features": {
        "plugins": False,
        "remote_plugin": False,
        "apps": False,
        "tool_suggest": False,
    },
}


def merge_tables(
    base: Mapping[str, TomlValue], override: Mapping[str, TomlValue]
) -> dict[str, TomlValue]:
    """Deep-merge two config tables; `override` wins on scalar conflicts."""
    merged: dict[str, TomlValue] = dict(base)
    for key, value in override.items():
        current = merged.get(key)
        if isinstance(current, Mapping) and isinstance(value, Mapping):
            merged[key] = merge_tables(current, value)
        else:
            merged[key] = value
    return merged


def provider_config(
    base_url: str,
    *,
    provider_id: str = DEFAULT_PROVIDER_ID,
    provider_name: str = DEFAULT_PROVIDER_NAME,
    model: str = DEFAULT_MODEL,
) -> dict[str, TomlValue]:
    """The config.toml of a codex whose only model provider is `base_url`."""
    provider: dict[str, TomlValue] = {
        "name": provider_name,
        "base_url": base_url,
        "wire_api": "responses",
        # A failed request must show up as a failure, not be retried behind our back.
        "request_max_retries": 0,
        "stream_max_retries": 0,
    }
    config: dict[str, TomlValue] = {
        "model": model,
        "model_provider": provider_id,
        "approval_policy": "never",
        "sandbox_mode": "read-only",
        "model_providers": {provider_id: provider},
    }
    return merge_tables(config, NETWORK_QUIET_SETTINGS)


class IsolatedHome:
    """A temp dir holding `home/`, `home/codex_home/` (CODEX_HOME), `work/`, the one root
    certificate codex's TLS trusts (rig/tls_roots.py) and, where the machine has
    lsb_release, `answers/` (rig/lsb_release.py).

    Use as a context manager (the dir is removed on exit unless `keep=True`), or
    call `cleanup()` yourself.
    """

    def __init__(
        self,
        base_url: str,
        *,
        provider_id: str = DEFAULT_PROVIDER_ID,
        provider_name: str = DEFAULT_PROVIDER_NAME,
        model: str = DEFAULT_MODEL,
        extra_config: Mapping[str, TomlValue] | None = None,
        rust_log: str | None = None,
        parent_dir: Path | None = None,
        keep: bool = False,
    ) -> None:
        if keep:
            made = Path(tempfile.mkdtemp(prefix="codex-probe-", dir=parent_dir))
        else:
            made = make_folder(parent=parent_dir)  # removed even if this process is killed
        self.root = made.resolve()
        self.home = self.root / "home"
        self.codex_home = self.home / "codex_home"
        self.workdir = self.root / "work"
        self.rust_log = rust_log
        self.keep = keep
        self.config = merge_tables(
            provider_config(
                base_url, provider_id=provider_id, provider_name=provider_name, model=model
            ),
            extra_config or {},
        )
        self.codex_home.mkdir(parents=True)
        self.workdir.mkdir()
        self.tls_roots = write_roots(self.root)
        self.write_config()

    @property
    def config_path(self) -> Path:
        return self.codex_home / "config.toml"

    def write_config(self) -> None:
        self.config_path.write_text(tomli_w.dumps(self.config), encoding="utf-8")

    def update_config(self, override: Mapping[str, TomlValue]) -> None:
        self.config = merge_tables(self.config, override)
        self.write_config()

    def env(self, path: str | None = None) -> dict[str, str]:
        """The whole environment for codex: built from nothing, never from os.environ.

        Only PATH is taken from the caller (codex runs the shell's tools, and its npm
        launcher, where it is used, `node`: harness/codex/direct_launch.py):
        `harness.child_env.CODEX`; the home's answers folder goes first on it. SSL_CERT_FILE
        names the home's one root certificate (rig/tls_roots.py).
        """
        search = path if path is not None else search_path()
        # codex asks lsb_release who the OS is for every request: answered from a folder
        # of the home's own, with the machine's answer (rig/lsb_release.py).
        search = answered_path(self.root / ANSWERS_FOLDER, search, CODEX_LOCALE)
        own = {
            "PATH": search,
            "HOME": str(self.home),
            "CODEX_HOME": str(self.codex_home),
            TLS_ROOTS_ENV: str(self.tls_roots),
        }
        env = child_env(CODEX, own | CODEX_LOCALE)
        if self.rust_log is not None:
            env["RUST_LOG"] = self.rust_log
        return env

    def cleanup(self) -> None:
        if not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)
            removed(self.root)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.cleanup()
