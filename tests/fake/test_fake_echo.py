"""The fake on a learned book echoes what thread/start is sent as the release's answer
shows it does (a sandbox in its own form, the approval policy, an ephemeral thread), and
runs a turn without text where the release ran one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fake.book_fixtures import cell, profile_with_book
from tests.fake.conftest import FakeProcesses

READ_ONLY = {"type": "readOnly", "networkAccess": False}
WORKSPACE = {
    "type": "workspaceWrite",
    "writableRoots": ["{{work}}"],
    "networkAccess": False,
    "excludeTmpdirEnvVar": False,
    "excludeSlashTmp": False,
}


def started(sandbox: Any, policy: str = "on-request") -> dict[str, Any]:
    return {"approvalPolicy": policy, "sandbox": sandbox, "thread": {"id": "x"}}


CELLS = [
    cell("thread/start", "none", "minimal", None, result=started(READ_ONLY)),
    cell(
        "thread/start",
        "none",
        "sandbox=workspace-write",
        {"sandbox": "workspace-write"},
        result=started(WORKSPACE),
    ),
    cell(
        "turn/start",
        "idle",
        "input=[localImage]",
        {"threadId": "{{thread}}", "input": [{"type": "localImage", "path": "{{work}}/i.png"}]},
        result={"turn": {}},
    ),
]


@pytest.fixture
def profile(tmp_path: Path) -> str:
    return str(profile_with_book("0.171.0", tmp_path / "profile", CELLS))


async def test_a_sandbox_sent_comes_back_in_the_form_the_release_answers_it(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    work = str(fake.home.workdir)
    answer = await client.request("thread/start", {"cwd": work, "sandbox": "workspace-write"})
    assert (
        answer["sandbox"] == {**WORKSPACE, "writableRoots": [str(Path.cwd())]}
        or answer["sandbox"]["type"] == "workspaceWrite"
    )
    plain = await client.request("thread/start", {"cwd": work})
    assert plain["sandbox"] == READ_ONLY


async def test_the_approval_policy_and_ephemeral_sent_are_echoed(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    answer = await client.request(
        "thread/start", {"approvalPolicy": "untrusted", "ephemeral": True}
    )
    assert answer["approvalPolicy"] == "untrusted"
    assert answer["thread"]["ephemeral"] is True
    assert (await client.request("thread/start", {}))["approvalPolicy"] == "never"


async def test_a_turn_without_text_runs_where_the_release_ran_one(
    fake: FakeProcesses, profile: str
) -> None:
    client = await fake.start(profile)
    thread_id = await fake.new_thread(client)
    image = {"type": "localImage", "path": str(fake.home.workdir / "i.png")}
    answer = await client.request("turn/start", {"threadId": thread_id, "input": [image]})
    assert answer["turn"]["status"] == "inProgress"
    done = await client.wait_for_notification("turn/completed", timeout=15)
    assert done.params["turn"]["status"] == "completed"
