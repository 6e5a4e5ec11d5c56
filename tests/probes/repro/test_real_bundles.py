"""Bundles of the real codex-cli, run as upstream runs them: `python3 -I -S reproduce.py`
(no site-packages, no codex-probe) against the real binary, then against the fake."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_MATRIX
from codex_probe.probes.domain.assumptions import BY_ID
from codex_probe.rig.backends import make_backend
from tests.probes.repro.bundles import bundled, run_bundle

pytestmark = pytest.mark.real

# One finding that holds on both default versions and one that changed on both.
KNOWN = [("start-applies-instructions", "holds"), ("resume-refresh-cold", "changed")]


@pytest.mark.parametrize("version", DEFAULT_MATRIX)
@pytest.mark.parametrize(("finding_id", "verdict"), KNOWN)
async def test_a_bundle_on_the_real_codex_observes_what_the_probe_did_and_so_does_the_fake(
    finding_id: str, verdict: str, version: str, tmp_path: Path, default_codex: Installation
) -> None:
    real = make_backend("real", version)
    finding, folder = await bundled(real, finding_id, tmp_path / "bundle", tmp_path)
    assert finding.verdict.value == verdict, finding.summary

    on_real = run_bundle(folder, real.binary)
    assert on_real.exit_code == 0, on_real.stderr + str(on_real.result)
    observed = on_real.result["outcome"]["observed"]
    assert set(BY_ID[finding_id].expected) <= set(observed)
    assert observed == {key: finding.observed[key] for key in observed}
    assert on_real.result["outcome"]["verdict"] == verdict
    assert version in on_real.result["codex_version"]

    on_fake = run_bundle(folder, make_backend("fake", version).binary)
    assert on_fake.exit_code == on_real.exit_code, on_fake.stderr
    assert on_fake.result["outcome"] == on_real.result["outcome"]
