"""permissionMode -> sandbox, exactly as the spec's implementation note says."""

from __future__ import annotations

import pytest

from codex_probe.harness.driver import (
    PermissionMode,
    SandboxConfigError,
    UnknownPermissionModeError,
    sandbox_settings,
)


def test_full_access_maps_to_danger_full_access_in_config_thread_and_turn() -> None:
    settings = sandbox_settings("full_access", "/work")
    assert settings.mode is PermissionMode.FULL_ACCESS
    assert settings.config_override == 'sandbox_mode="danger-full-access"'
    assert settings.thread_sandbox == "danger-full-access"
    assert settings.turn_sandbox_policy == {"type": "dangerFullAccess"}


def test_agent_workspace_write_maps_to_workspace_write_with_the_work_dir_writable() -> None:
    settings = sandbox_settings("agent_workspace_write", "/srv/agent")
    assert settings.config_override == 'sandbox_mode="workspace-write"'
    assert settings.thread_sandbox == "workspace-write"
    assert settings.turn_sandbox_policy == {
        "type": "workspaceWrite",
        "writableRoots": ["/srv/agent"],
    }


def test_no_mapping_mentions_a_permission_profile() -> None:
    for mode in PermissionMode:
        settings = sandbox_settings(mode.value, "/w")
        assert "ermission" not in repr(settings.turn_sandbox_policy)
        assert "ermission" not in settings.config_override


@pytest.mark.parametrize("mode", ["", "read_only", "FULL_ACCESS", "danger-full-access"])
def test_an_unknown_permission_mode_is_a_clear_error(mode: str) -> None:
    with pytest.raises(UnknownPermissionModeError, match="full_access, agent_workspace_write"):
        sandbox_settings(mode, "/w")


@pytest.mark.parametrize("work_dir", ["", "  ", "relative/dir"])
def test_workspace_write_without_an_absolute_work_dir_is_refused(work_dir: str) -> None:
    # 0.171.0 answers a relative writableRoot with "AbsolutePathBuf deserialized
    # without a base path"; the driver says so before sending anything.
    with pytest.raises(SandboxConfigError, match="absolute workDir"):
        sandbox_settings("agent_workspace_write", work_dir)
