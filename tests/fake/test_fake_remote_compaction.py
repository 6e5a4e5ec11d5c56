"""The fake's remote compaction sends the fields the profile names, and learn reads them
back from the fake's run."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codex_probe.fake_appserver.profile import COMPACT_BODY_KEYS
from codex_probe.probes.domain.observation import Observation
from codex_probe.probes.releases.learn.behaviour import remote_compaction
from codex_probe.probes.releases.learn.observed import Observed
from codex_probe.probes.runner.scenarios import SCENARIO_HOMES, SCENARIOS
from codex_probe.probes.runner.steps import run_scenario
from codex_probe.rig.backends import make_backend
from tests.fake.conftest import copy_profile, edit

pytestmark = pytest.mark.real  # the fake reads its schema from the installed release

SCENARIO = "compaction-remote"


def observed(profile: Path) -> Observation:
    backend = make_backend("fake", "0.120.0", profile=profile)
    # Its home names the provider OpenAI, which takes codex's remote compaction path.
    home = SCENARIO_HOMES.get(SCENARIO)
    return asyncio.run(run_scenario(SCENARIO, SCENARIOS[SCENARIO], backend, home_options=home))


@pytest.mark.parametrize(
    "keys",
    [None, sorted([*COMPACT_BODY_KEYS, "prompt_cache_key"])],
    ids=["0.120.0's fields", "with prompt_cache_key, as 0.133.0"],
)
def test_a_compaction_request_carries_the_fields_the_profile_names_and_learn_reads_them_back(
    tmp_path: Path, keys: list[str] | None
) -> None:
    profile = copy_profile("0.120.0", tmp_path)
    edit(
        profile,
        lambda d: d["behaviour"]["remote_compaction"]["value"].update(compact_body_keys=keys),
    )
    observation = observed(profile)
    (compaction,) = observation.request_bodies("compact")
    assert sorted(compaction) == sorted(keys or COMPACT_BODY_KEYS)
    inferred = remote_compaction(Observed({SCENARIO: observation}))
    assert inferred.value.compact_body_keys == keys
