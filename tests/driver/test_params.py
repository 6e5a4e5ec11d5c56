"""The params the driver sends (spec 4.6, 4.7): pure functions of the StartConfig."""

from __future__ import annotations

import pytest

from codex_probe.harness.driver import (
    start_turn_params,
    steer_turn_params,
    thread_resume_params,
    thread_start_params,
)
from tests.driver.conftest import BASE, DEVELOPER, WORK_DIR, start_config


def test_thread_start_carries_cwd_sandbox_approval_and_both_instructions() -> None:
    assert thread_start_params(start_config()) == {
        "cwd": WORK_DIR,
        "sandbox": "workspace-write",
        "approvalPolicy": "never",
        "baseInstructions": BASE,
        "developerInstructions": DEVELOPER,
    }


def test_thread_start_sends_the_model_only_when_one_is_set() -> None:
    assert "model" not in thread_start_params(start_config(model="  "))
    assert thread_start_params(start_config(model="gpt-x"))["model"] == "gpt-x"


@pytest.mark.parametrize("blank", ["", " ", "\n\t"])
def test_thread_start_omits_each_instruction_field_that_is_blank(blank: str) -> None:
    params = thread_start_params(start_config(base_instructions=blank))
    assert "baseInstructions" not in params and params["developerInstructions"] == DEVELOPER
    params = thread_start_params(start_config(developer_instructions=blank))
    assert "developerInstructions" not in params and params["baseInstructions"] == BASE


def test_thread_start_sends_instructions_byte_for_byte() -> None:
    base = "  leading and trailing space\n"
    assert thread_start_params(start_config(base_instructions=base))["baseInstructions"] == base


def test_thread_resume_always_sends_the_current_instruction_strings_even_empty() -> None:
    params = thread_resume_params(start_config(developer_instructions=""), "t-1")
    assert params == {
        "threadId": "t-1",
        "sandbox": "workspace-write",
        "approvalPolicy": "never",
        "cwd": WORK_DIR,
        "baseInstructions": BASE,
        "developerInstructions": "",
    }


def test_full_access_threads_ask_for_danger_full_access() -> None:
    config = start_config(permission_mode="full_access")
    assert thread_start_params(config)["sandbox"] == "danger-full-access"
    assert thread_resume_params(config, "t")["sandbox"] == "danger-full-access"


def test_no_request_ever_carries_a_permission_profile() -> None:
    config = start_config(model="m")
    everything = [
        thread_start_params(config),
        thread_resume_params(config, "t"),
        start_turn_params("x", "t", {"type": "dangerFullAccess"}),
        steer_turn_params("x", "t", "turn"),
    ]
    assert not any("permissionProfile" in (params or {}) for params in everything)


def test_start_turn_params_is_none_without_a_thread_or_without_text() -> None:
    assert start_turn_params("hello", "") is None
    assert start_turn_params("", "t") is None
    assert start_turn_params(" \n", "t") is None
    assert steer_turn_params("", "t", "turn") is None


def test_start_turn_params_carry_the_exact_text_and_the_turn_sandbox_policy() -> None:
    body = "  first line\nsecond line  \n"
    policy = {"type": "workspaceWrite", "writableRoots": [WORK_DIR]}
    assert start_turn_params(body, "t", policy) == {
        "threadId": "t",
        "input": [{"type": "text", "text": body}],
        "sandboxPolicy": policy,
    }


def test_steer_params_name_the_turn_expected_to_be_active() -> None:
    assert steer_turn_params("more", "t", "turn-7") == {
        "threadId": "t",
        "input": [{"type": "text", "text": "more"}],
        "expectedTurnId": "turn-7",
    }
