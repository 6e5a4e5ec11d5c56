"""The `initialize` answer, shared by the server and the first request read before it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codex_probe.fake_appserver.profile import Profile


def initialize_result(profile: Profile, codex_home: Path, params: Any) -> tuple[str, Any]:
    """The client's name (threads name it their originator) and the `initialize` result."""
    client = params.get("clientInfo") or {}
    client_name = str(client.get("name", "client"))
    result = dict(profile.template("initialize"))
    result["userAgent"] = (
        f"{client_name}/{profile.version} (fake-codex) ({client_name}; {client.get('version', '')})"
    )
    if "codexHome" in result:
        result["codexHome"] = str(codex_home)
    return client_name, result


def declares_experimental_api(params: Any) -> bool:
    """Whether an `initialize` declares the experimentalApi capability."""
    capabilities = params.get("capabilities") if isinstance(params, dict) else None
    return isinstance(capabilities, dict) and capabilities.get("experimentalApi") is True
