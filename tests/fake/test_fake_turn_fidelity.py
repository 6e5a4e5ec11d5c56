"""The fake imitates real turns: each scripted reply kind gives the same normalized
observation on the fake as on the real release it imitates (0.120.0 and 0.171.0).

The comparison is the one the fake-fidelity findings make (`codex_probe/probes/domain/fidelity.py`):
per step its error and model requests (input items by role and marker, or by type:
`function_call`, `function_call_output`, `reasoning`), then the lifecycle notifications
(`item/completed:commandExecution`, `thread/status/changed:systemError`,
`turn/completed:failed`...). Texts of outputs, ids and times are not compared; the tests
of tests/fake/test_fake_turns.py check what the fake's outputs say.
"""

from __future__ import annotations

import pytest

from tests.rig.turns import CASES, PROFILED, TurnRun, fidelity_difference, observed

pytestmark = pytest.mark.real  # the real release is the reference

# 0.120.0 now and then loses the item/completed of a command whose output streamed
# (docs/observations/real-turns.md): a real run that shows the race is compared without it.


def without_lost_completions(real: TurnRun, fake: TurnRun) -> None:
    """Where the real 0.120.0 run lost a command's item/completed, drop the fake's too."""
    started = len(real.items("started", "commandExecution"))
    lost = started - len(real.items("completed", "commandExecution"))
    if real.observation.version != "0.120.0" or lost <= 0:
        return
    entries = fake.observation.transcript.entries
    for entry in list(entries):
        message = entry.message if isinstance(entry.message, dict) else {}
        item = (message.get("params") or {}).get("item") or {}
        completes_a_command = item.get("type") == "commandExecution"
        if lost and message.get("method") == "item/completed" and completes_a_command:
            entries.remove(entry)
            lost -= 1


@pytest.mark.parametrize("version", PROFILED)
@pytest.mark.parametrize("case", sorted(name for name, case in CASES.items() if case.compared))
def test_the_fake_gives_the_real_observation_for_each_reply_kind(
    tmp_path_factory: pytest.TempPathFactory, version: str, case: str
) -> None:
    real = observed(tmp_path_factory, "real", version, case)
    fake = observed(tmp_path_factory, "fake", version, case)
    without_lost_completions(real, fake)
    difference = fidelity_difference(real.observation, fake.observation)
    if difference:
        pytest.fail(f"the fake differs from real {version} on {case}:\n{difference}")
