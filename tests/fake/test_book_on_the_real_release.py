"""A book learned from a real exploration of 0.171.0: the fake on it answers those cells
as the release did, cell by cell as the surface reads them (answer shape with enumerated
values, refusal code and masked message, notifications)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from codex_probe.fake_appserver.answer_book import book_path
from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.probes.domain.surface.exploration import exploration_aspect
from codex_probe.probes.explore.run import explore
from codex_probe.probes.releases.learn.book import write_book_beside
from codex_probe.rig.backends import make_backend
from tests.fake.conftest import copy_profile

# Methods the fake has no handler for, in several states, answered and refused, and
# refusals of methods it has one for.
CELLS = {
    "thread/archive idle minimal",
    "thread/goal/get archived minimal",
    "thread/unarchive archived minimal",
    "thread/turns/list in-flight minimal",
    "thread/items/list compacted minimal",
    "thread/metadata/update forked minimal",
    "thread/name/set idle minimal",
    "fs/readFile none minimal",
    "config/read none minimal",
    "account/rateLimits/read none minimal",
    "thread/goal/get none without threadId",
    "thread/read none minimal",
    "thread/start none ephemeral of the wrong type",
}


def test_the_fake_on_a_book_learned_from_the_release_answers_its_cells_as_the_release_did(
    tmp_path: Path, default_codex: Installation
) -> None:
    real_backend = make_backend("real", DEFAULT_CODEX_VERSION)
    real = asyncio.run(explore(real_backend, only=CELLS)).to_json()
    profile = copy_profile(DEFAULT_CODEX_VERSION, tmp_path)
    assert write_book_beside(real, real_backend.schema_folder, profile) == book_path(profile)
    fake_backend = make_backend("fake", DEFAULT_CODEX_VERSION, profile=profile)
    fake = asyncio.run(explore(fake_backend, only=CELLS)).to_json()
    schema = real_backend.schema_folder
    real_cells, fake_cells = exploration_aspect(real, schema), exploration_aspect(fake, schema)
    assert set(real_cells) == CELLS
    assert all("not run" not in value for value in real_cells.values())
    differing = {
        key: (real_cells[key], fake_cells.get(key))
        for key in CELLS
        if real_cells[key] != fake_cells.get(key)
    }
    assert differing == {}
