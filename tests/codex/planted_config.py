"""Run inside a throwaway mount namespace whose /etc is an overlay (see test_sealing.py):
plants a system codex config there, never on the host, and prints one JSON document.

`python -m tests.codex.planted_config visible`: what a launch reports and sees.
`python -m tests.codex.planted_config start VERSION`: the `start` scenario on the real
codex, unsealed and sealed, with a planted model provider that points at a decoy wiretap.
`python -m tests.codex.planted_config reproduce BUNDLE CODEX`: the bundle's reproduce.py
with its seal.py, then a copy of the bundle without it, with a planted model provider
that points nowhere.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

from codex_probe.harness.codex import seal
from codex_probe.harness.codex.seal import SYSTEM_CONFIG_DIR, Support, prepare, seal_launch
from codex_probe.probes.domain.fidelity import normalize
from codex_probe.probes.domain.observation import ScenarioBroken
from codex_probe.probes.releases.repro.script.sealing import SEAL_FILE
from codex_probe.probes.runner.scenarios import SCENARIOS
from codex_probe.probes.runner.steps import run_scenario
from codex_probe.rig.backends import Backend, make_backend
from codex_probe.rig.wiretap import Wiretap
from tests.probes.repro.bundles import run_bundle

PLANTED_PROVIDER = "planted"
UNSUPPORTED = Support(False, "switched off by the test")
LIST_SYSTEM_CONFIG = ["sh", "-c", f"ls -A {SYSTEM_CONFIG_DIR} 2>&1 || true"]


def plant(base_url: str) -> list[str]:
    """A system config whose model provider is `base_url`, in both files codex reads:
    config.toml (below our own config) and managed_config.toml (above it)."""
    config = "\n".join(
        [
            'model = "planted-model"',
            f'model_provider = "{PLANTED_PROVIDER}"',
            f"[model_providers.{PLANTED_PROVIDER}]",
            f'name = "{PLANTED_PROVIDER}"',
            f'base_url = "{base_url}"',
            'wire_api = "responses"',
            "request_max_retries = 0",
            "stream_max_retries = 0",
            "",
        ]
    )
    folder = Path(SYSTEM_CONFIG_DIR)
    folder.mkdir(exist_ok=True)
    written = []
    for name in ("config.toml", "managed_config.toml"):
        (folder / name).write_text(config)
        written.append(str(folder / name))
    return written


def visible() -> dict[str, Any]:
    planted = plant("http://127.0.0.1:9/v1")  # nothing listens on the discard port
    with tempfile.TemporaryDirectory() as work:
        unsealed_argv, unsealed = prepare(LIST_SYSTEM_CONFIG, work, UNSUPPORTED)
        sealed_argv, sealed = seal_launch(LIST_SYSTEM_CONFIG, cwd=work)
        sees = {
            name: subprocess.run(
                argv, cwd=work, capture_output=True, text=True, timeout=30, check=False
            ).stdout.split()
            for name, argv in (("unsealed", unsealed_argv), ("sealed", sealed_argv))
        }
    return {
        "planted": planted,
        "unsealed": unsealed.to_json(),
        "sealed": sealed.to_json(),
        "sees": sees,
    }


async def observe(backend: Backend) -> dict[str, Any]:
    try:
        observation = await run_scenario("start", SCENARIOS["start"], backend)
    except ScenarioBroken as error:
        return {"broken": str(error), "wiretap_requests": len(error.requests)}
    return normalize(observation)


async def start(version: str) -> dict[str, Any]:
    backend = make_backend("real", version)
    async with Wiretap() as decoy:
        plant(decoy.base_url)
        with mock.patch.object(seal, "namespace_support", return_value=UNSUPPORTED):
            unsealed = await observe(backend)
        decoy_after_unsealed = len(decoy.model_requests())
        sealed = await observe(backend)
        decoy_after_sealed = len(decoy.model_requests())
    return {
        "unsealed": unsealed,
        "sealed": sealed,
        "decoy_requests_unsealed": decoy_after_unsealed,
        "decoy_requests_sealed": decoy_after_sealed - decoy_after_unsealed,
        "sealing": seal.describe_sealing(),
    }


def reproduce(folder: Path, codex: str) -> dict[str, Any]:
    planted = plant("http://127.0.0.1:9/v1")  # nothing listens on the discard port
    runs: dict[str, Any] = {"planted": planted}
    with tempfile.TemporaryDirectory() as bare:
        copy = Path(bare) / "bundle"
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns(SEAL_FILE))
        # Without the seal a turn waits on the planted provider: its deadline only bounds
        # how long that takes.
        for name, bundle, options in (
            ("with_seal", folder, ()),
            ("without_seal", copy, ("--timeout", "10")),
        ):
            run = run_bundle(bundle, codex, *options)
            runs[name] = {"exit": run.exit_code, "result": run.result, "stderr": run.stderr}
    return runs


def main(args: list[str]) -> int:
    if args == ["visible"]:
        document = visible()
    elif len(args) == 2 and args[0] == "start":
        document = asyncio.run(start(args[1]))
    elif len(args) == 3 and args[0] == "reproduce":
        document = reproduce(Path(args[1]), args[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(json.dumps(document))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
