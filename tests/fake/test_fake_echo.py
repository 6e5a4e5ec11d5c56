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


PERMISSION_PROFILE = {"id": ":read-only", "extends": None}


def started(sandbox: Any, profile: Any = None) -> dict[str, Any]:
    # The exploration's home leaves the approval policy and the sandbox to codex.
    return {
        "activePermissionProfile": profile,
        "approvalPolicy": "on-request",
        "sandbox": sandbox,
        "thread": {"id": "x"},
    }


CELLS = [
    cell("thread/start", "none", "minimal", None, result=started(READ_ONLY, PERMISSION_PROFILE)),
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
    # The test home sets both: the thread gets them, as the wire template shows.
    plain = await client.request("thread/start", {})
    assert (plain["approvalPolicy"], plain["activePermissionProfile"]) == ("never", None)


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


def leave_sandbox_and_policy_to_codex(fake: FakeProcesses) -> None:
    config = fake.home.codex_home / "config.toml"
    kept = [
        line
        for line in config.read_text().splitlines()
        if not line.startswith(("approval_policy", "sandbox_mode"))
    ]
    config.write_text("\n".join(kept) + "\n")


async def test_a_loaded_threads_resume_keeps_its_sandbox_where_the_release_ignores_the_one_sent(
    fake: FakeProcesses, tmp_path: Path
) -> None:
    resumed = started(READ_ONLY, PERMISSION_PROFILE)
    cells = [
        *CELLS,
        cell("thread/resume", "idle", "minimal", {"threadId": "{{thread}}"}, result=resumed),
        cell(
            "thread/resume",
            "idle",
            "sandbox=danger-full-access",
            {"threadId": "{{thread}}", "sandbox": "danger-full-access"},
            result=resumed,
        ),
    ]
    leave_sandbox_and_policy_to_codex(fake)
    client = await fake.start(str(profile_with_book("0.171.0", tmp_path / "profile", cells)))
    thread_id = await fake.new_thread(client)
    await fake.turn(client, thread_id, "hello")
    sent = {"threadId": thread_id, "sandbox": "danger-full-access", "approvalPolicy": "never"}
    answer = await client.request("thread/resume", sent)
    assert answer["activePermissionProfile"] == PERMISSION_PROFILE
    assert answer["sandbox"] == READ_ONLY


async def test_a_resume_that_loads_a_thread_applies_the_sandbox_sent_as_the_release_answers_it(
    fake: FakeProcesses, tmp_path: Path
) -> None:
    full_access = {"type": "dangerFullAccess"}
    cells = [
        *CELLS,
        cell(
            "thread/resume",
            "unloaded",
            "minimal",
            {"threadId": "{{thread}}"},
            result=started(READ_ONLY, PERMISSION_PROFILE),
        ),
        cell(
            "thread/resume",
            "unloaded",
            "sandbox=danger-full-access",
            {"threadId": "{{thread}}", "sandbox": "danger-full-access"},
            result=started(full_access),
        ),
    ]
    leave_sandbox_and_policy_to_codex(fake)
    profile = str(profile_with_book("0.171.0", tmp_path / "profile", cells))
    first = await fake.start(profile)
    thread_id = await fake.new_thread(first)
    await fake.turn(first, thread_id, "hello")
    second = await fake.start(profile)  # another process: the thread is not loaded there
    sent = {"threadId": thread_id, "sandbox": "danger-full-access", "approvalPolicy": "never"}
    answer = await second.request("thread/resume", sent)
    assert (answer["sandbox"], answer["activePermissionProfile"]) == (full_access, None)
    assert answer["approvalPolicy"] == "never"


async def test_a_home_that_leaves_the_sandbox_and_policy_to_codex_gets_the_releases_defaults(
    fake: FakeProcesses, profile: str
) -> None:
    leave_sandbox_and_policy_to_codex(fake)
    client = await fake.start(profile)
    answer = await client.request("thread/start", {})
    assert answer["activePermissionProfile"] == PERMISSION_PROFILE
    assert (answer["approvalPolicy"], answer["sandbox"]) == ("on-request", READ_ONLY)


async def test_a_fork_says_what_it_was_forked_from_when_read(fake: FakeProcesses) -> None:
    client = await fake.start("0.171.0")
    parent = await fake.new_thread(client)
    await fake.turn(client, parent, "hello")
    forked = await client.request("thread/fork", {"threadId": parent})
    fork_id = forked["thread"]["id"]
    read = await client.request("thread/read", {"threadId": fork_id})
    assert read["thread"]["forkedFromId"] == parent


async def test_a_handlers_answer_gains_the_fields_the_releases_answer_has_and_it_lacks(
    tmp_path: Path, fake: FakeProcesses
) -> None:
    read_state = {"revision": "r1", "firstUnread": None}
    cells = [
        cell(
            "thread/read",
            "idle",
            "minimal",
            {"threadId": "{{thread}}"},
            result={"thread": {"id": "{{thread}}"}, "readState": read_state},
        )
    ]
    client = await fake.start(str(profile_with_book("0.171.0", tmp_path / "read", cells)))
    thread_id = await fake.new_thread(client)
    await fake.turn(client, thread_id, "hello")
    read = await client.request("thread/read", {"threadId": thread_id})
    assert read["readState"] == read_state
    assert read["thread"]["id"] == thread_id and read["thread"]["status"]["type"] == "idle"
