"""The fake forks a thread and switches its model as the profile says codex does, and
learn reads each profile value back from the fake's run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from codex_probe.fake_appserver.profile import ForkInstructions, ModelSwitch
from codex_probe.probes.domain.observation import Observation
from codex_probe.probes.releases.learn.behaviour import fork, model_switch
from codex_probe.probes.releases.learn.observed import Observed
from codex_probe.probes.runner.scenarios import SCENARIOS, base, developer
from codex_probe.probes.runner.steps import run_scenario
from codex_probe.rig.backends import make_backend
from tests.fake.conftest import FakeProcesses, copy_profile, edit, texts

pytestmark = pytest.mark.real  # the fake reads its schema from the installed release


def observed(scenario: str, version: str, profile: Path | None = None) -> Observation:
    backend = make_backend("fake", version, profile=profile)
    return asyncio.run(run_scenario(scenario, SCENARIOS[scenario], backend))


async def test_a_fork_has_the_parent_s_history_and_turns_and_announces_itself(
    fake: FakeProcesses,
) -> None:
    client = await fake.start("0.171.0")
    parent = await fake.new_thread(client, baseInstructions="BASE-1")
    await fake.turn(client, parent, "first")
    forked = await client.request("thread/fork", {"threadId": parent})
    thread = forked["thread"]
    assert thread["id"] != parent and thread["forkedFromId"] == parent
    assert len(thread["turns"]) == 1
    await client.wait_for_notification(
        "thread/started", lambda n: n.params["thread"]["id"] == thread["id"], timeout=5
    )
    await fake.turn(client, thread["id"], "second")
    sent = texts(fake.last_input())[-3:]
    assert sent == [("user", ["first"]), ("assistant", ["wiretap reply 0"]), ("user", ["second"])]


async def test_a_fork_of_a_thread_without_a_rollout_is_refused_as_a_resume_of_one(
    fake: FakeProcesses,
) -> None:
    client = await fake.start("0.171.0")
    parent = await fake.new_thread(client)
    with pytest.raises(Exception, match="no rollout found"):
        await client.request("thread/fork", {"threadId": parent})


@pytest.mark.parametrize(
    ("rule", "base_tag", "developer_tag"),
    [
        (ForkInstructions.BASE_FROM_FORK_DEVELOPER_FROM_HISTORY, "V2", "V1"),
        (ForkInstructions.BOTH_FROM_FORK, "V2", "V2"),
        (ForkInstructions.PARENT_KEPT, "V1", "V1"),
    ],
)
def test_each_fork_rule_gives_the_fork_its_instructions_and_learn_reads_it_back(
    tmp_path: Path, rule: ForkInstructions, base_tag: str, developer_tag: str
) -> None:
    profile = copy_profile("0.171.0", tmp_path)
    edit(profile, lambda d: d["behaviour"]["fork"].update(value=rule.value))
    observation = observed("fork", "0.171.0", profile)
    body = observation.request_bodies("turn-fork-new")[-1]
    sent = str(body)
    assert base(base_tag) in sent and developer(developer_tag) in sent
    assert fork(Observed({"fork": observation})).value is rule


@pytest.mark.parametrize("rule", list(ModelSwitch))
def test_each_model_switch_rule_is_imitated_and_learn_reads_it_back(
    tmp_path: Path, rule: ModelSwitch
) -> None:
    profile = copy_profile("0.120.0", tmp_path)
    edit(profile, lambda d: d["behaviour"]["model_switch"].update(value=rule.value))
    observation = observed("model-switch", "0.120.0", profile)
    inputs: list[dict[str, Any]] = observation.request_bodies("turn-2")[-1]["input"]
    messages = [ts for _, ts in texts(inputs) if any(t.startswith("<model_switch>") for t in ts)]
    assert len(messages) == (rule is not ModelSwitch.NOTHING)
    assert all(base("V1") in parts[0] for parts in messages)
    # The permissions text, again, after the switch where the rule says so (0.144.x).
    permissions = json.loads(profile.read_text())["texts"]["permissions"]
    again = rule is ModelSwitch.BASE_AND_PERMISSIONS_IN_DEVELOPER_MESSAGE
    assert all(parts[1:] == ([permissions] if again else []) for parts in messages)
    assert model_switch(Observed({"model-switch": observation})).value is rule
