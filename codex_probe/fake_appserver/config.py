"""What the fake reads of codex's configuration: model, provider and its base_url.

Like codex: `$CODEX_HOME/config.toml`, then `-c key=value` overrides, whose value is
parsed as TOML and, if that fails, taken as a literal string.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class ConfigError(ValueError):
    """config.toml or an override is unusable; the message says which and why."""


@dataclass(frozen=True)
class ProviderConfig:
    model: str
    provider_id: str
    # codex compacts remotely for a provider named like OpenAI's (measured; see profiles).
    provider_name: str
    base_url: str
    sandbox_mode: str
    approval_policy: str
    # The keys of the two the configuration leaves to codex's defaults (`sandbox_mode`,
    # `approval_policy`): a thread/start then answers the release's defaults.
    left_to_codex: tuple[str, ...] = ()


def load_config(codex_home: Path, overrides: Sequence[str]) -> dict[str, Any]:
    path = codex_home / "config.toml"
    config: dict[str, Any] = {}
    if path.is_file():
        try:
            config = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"{path}: {error}") from None
    for override in overrides:
        key, sep, raw = override.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"-c {override!r}: expected key=value")
        _set_dotted(config, key.strip(), _parse_value(raw))
    return config


def _parse_value(raw: str) -> Any:
    try:
        return tomllib.loads(f"value = {raw}")["value"]
    except tomllib.TOMLDecodeError:
        return raw


def _set_dotted(config: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, leaf = dotted.split(".")
    table = config
    for part in parents:
        table = table.setdefault(part, {})
        if not isinstance(table, dict):
            raise ConfigError(f"-c {dotted}: {part} is not a table")
    table[leaf] = value


def provider_config(config: dict[str, Any]) -> ProviderConfig:
    provider_id = str(config.get("model_provider", "openai"))
    provider = config.get("model_providers", {}).get(provider_id)
    if not isinstance(provider, dict) or "base_url" not in provider:
        raise ConfigError(
            f"model provider {provider_id!r} has no base_url in config.toml "
            "(fake-codex only talks to a configured provider)"
        )
    return ProviderConfig(
        model=str(config.get("model", "gpt-5")),
        provider_id=provider_id,
        provider_name=str(provider.get("name", provider_id)),
        base_url=str(provider["base_url"]).rstrip("/"),
        sandbox_mode=str(config.get("sandbox_mode", "read-only")),
        approval_policy=str(config.get("approval_policy", "on-request")),
        left_to_codex=tuple(k for k in ("sandbox_mode", "approval_policy") if k not in config),
    )
