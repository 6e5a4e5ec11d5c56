"""Isolated homes and the config.toml they write."""

from __future__ import annotations

import math
import tempfile
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codex_probe.rig.homes import (
    ANSWERS_FOLDER,
    OPENAI_PROVIDER_NAME,
    IsolatedHome,
    TomlValue,
    merge_tables,
)

BASE_URL = "http://127.0.0.1:4321/v1"


@pytest.fixture
def home(tmp_path: Path) -> IsolatedHome:
    return IsolatedHome(BASE_URL, parent_dir=tmp_path)


def read_config(home: IsolatedHome) -> dict[str, object]:
    return tomllib.loads(home.config_path.read_text(encoding="utf-8"))


def test_env_never_carries_the_callers_api_keys_or_codex_variables(
    monkeypatch: pytest.MonkeyPatch, home: IsolatedHome
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-caller")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-other")
    monkeypatch.setenv("CODEX_HOME", "/root/.codex")
    monkeypatch.setenv("CODEX_SANDBOX", "seatbelt")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("RUST_LOG", "trace")
    env = home.env()
    assert not [name for name in env if name.endswith("_API_KEY")]
    assert [name for name in env if name.startswith("CODEX_")] == ["CODEX_HOME"]
    assert "sk-caller" not in env.values()
    assert env["CODEX_HOME"] != "/root/.codex"
    assert "HTTPS_PROXY" not in env
    assert "RUST_LOG" not in env


def test_home_codex_home_and_workdir_all_lie_inside_the_temp_dir(home: IsolatedHome) -> None:
    env = home.env()
    for path in (Path(env["HOME"]), Path(env["CODEX_HOME"]), home.workdir):
        assert path.is_dir()
        assert path.resolve().is_relative_to(home.root)
    assert Path(env["CODEX_HOME"]) != Path.home() / ".codex"
    assert home.config_path == Path(env["CODEX_HOME"]) / "config.toml"


def test_env_holds_exactly_path_homes_and_fixed_locale_and_timezone(
    home: IsolatedHome, tmp_path: Path
) -> None:
    bare = tmp_path / "bin"  # no lsb_release on it: the caller's PATH as it is
    bare.mkdir()
    env = home.env(path=f"{bare}:/nowhere")
    assert set(env) == {"PATH", "HOME", "CODEX_HOME", "SSL_CERT_FILE", "LANG", "LC_ALL", "TZ"}
    assert (env["PATH"], env["LANG"], env["TZ"]) == (f"{bare}:/nowhere", "C.UTF-8", "UTC")


def test_a_path_with_lsb_release_gets_the_homes_answers_folder_in_front(
    home: IsolatedHome, tmp_path: Path
) -> None:
    programs = tmp_path / "bin"
    programs.mkdir()
    (programs / "lsb_release").write_text("#!/bin/sh\necho Distributor ID: Test\n")
    (programs / "lsb_release").chmod(0o755)
    env = home.env(path=str(programs))
    assert env["PATH"] == f"{home.root / ANSWERS_FOLDER}:{programs}"
    assert (home.root / ANSWERS_FOLDER / "lsb_release").is_file()


def test_rust_log_is_passed_only_when_asked_for(tmp_path: Path) -> None:
    home = IsolatedHome(BASE_URL, parent_dir=tmp_path, rust_log="codex_core=debug")
    assert home.env()["RUST_LOG"] == "codex_core=debug"


def test_each_home_is_a_fresh_directory(tmp_path: Path) -> None:
    first = IsolatedHome(BASE_URL, parent_dir=tmp_path)
    second = IsolatedHome(BASE_URL, parent_dir=tmp_path)
    assert first.root != second.root


def test_config_points_the_only_model_provider_at_the_base_url(home: IsolatedHome) -> None:
    config = read_config(home)
    assert config["model_provider"] == "mock"
    assert config["model"] == "mock-model"
    assert config["approval_policy"] == "never"
    assert config["model_providers"] == {
        "mock": {
            "name": "mock",
            "base_url": BASE_URL,
            "wire_api": "responses",
            "request_max_retries": 0,
            "stream_max_retries": 0,
        }
    }


def test_config_turns_off_the_features_that_reach_the_network(home: IsolatedHome) -> None:
    config = read_config(home)
    features = config["features"]
    assert isinstance(features, dict)
    # plugins=false alone silenced every DNS lookup (strace, 0.120.0 and 0.171.0).
    assert features["plugins"] is False
    assert (features["remote_plugin"], features["apps"]) == (False, False)
    assert config["check_for_update_on_startup"] is False
    assert config["analytics"] == {"enabled": False}


def test_provider_can_be_named_openai_to_take_codexs_remote_compaction_path(tmp_path: Path) -> None:
    home = IsolatedHome(BASE_URL, parent_dir=tmp_path, provider_name=OPENAI_PROVIDER_NAME)
    providers = read_config(home)["model_providers"]
    assert isinstance(providers, dict)
    assert providers["mock"]["name"] == "OpenAI"


def test_extra_config_is_merged_over_the_defaults_table_by_table(tmp_path: Path) -> None:
    extra: dict[str, TomlValue] = {
        "features": {"plugins": True},
        "model_auto_compact_token_limit": 1000,
    }
    home = IsolatedHome(BASE_URL, parent_dir=tmp_path, extra_config=extra)
    config = read_config(home)
    assert config["model_auto_compact_token_limit"] == 1000
    features = config["features"]
    assert isinstance(features, dict)
    assert (features["plugins"], features["apps"]) == (True, False)


def test_update_config_rewrites_the_file(home: IsolatedHome) -> None:
    home.update_config({"model": "other-model"})
    assert read_config(home)["model"] == "other-model"


def test_cleanup_removes_the_temp_dir_unless_asked_to_keep_it(tmp_path: Path) -> None:
    with IsolatedHome(BASE_URL, parent_dir=tmp_path) as removed:
        assert removed.root.exists()
    assert not removed.root.exists()
    with IsolatedHome(BASE_URL, parent_dir=tmp_path, keep=True) as kept:
        pass
    assert kept.root.exists()


def test_merge_tables_keeps_both_sides_and_lets_the_override_win() -> None:
    merged = merge_tables({"a": {"x": 1, "y": 2}, "b": 1}, {"a": {"y": 3}, "c": 4})
    assert merged == {"a": {"x": 1, "y": 3}, "b": 1, "c": 4}


# -- config.toml -------------------------------------------------------------------
def test_config_toml_reads_back_as_the_config_with_any_scalar_array_and_table(
    tmp_path: Path,
) -> None:
    extra: dict[str, TomlValue] = {
        "text": 'quote " backslash \\ newline \n tab \t bell \x07 del \x7f é 漢',
        "count": -3,
        "ratio": 0.25,
        "items": ["a", "b"],
        "needs quoting.key": "v",
        "outer": {"inner": {"deep": False}, "sibling": 1},
        "empty": {},
    }
    home = IsolatedHome(BASE_URL, parent_dir=tmp_path, extra_config=extra)
    assert read_config(home) == home.config


def test_config_toml_puts_root_keys_before_any_table(home: IsolatedHome) -> None:
    home.update_config({"table": {"k": 1}, "root": "v"})
    text = home.config_path.read_text(encoding="utf-8")
    assert text.index("root =") < text.index("[table]")


def test_config_toml_writes_infinite_and_nan_floats(home: IsolatedHome) -> None:
    home.update_config({"a": math.inf, "b": -math.inf, "c": math.nan})
    parsed = read_config(home)
    assert parsed["a"] == math.inf
    assert parsed["b"] == -math.inf
    assert isinstance(parsed["c"], float) and math.isnan(parsed["c"])


def test_a_value_toml_cannot_hold_is_refused_and_the_file_is_left_as_it_was(
    home: IsolatedHome,
) -> None:
    before = home.config_path.read_text(encoding="utf-8")
    with pytest.raises(TypeError, match="NoneType"):
        home.update_config({"a": None})  # type: ignore[dict-item]
    assert home.config_path.read_text(encoding="utf-8") == before


@given(key=st.text(min_size=1), value=st.text())
def test_config_toml_round_trips_any_string_key_and_value(key: str, value: str) -> None:
    with tempfile.TemporaryDirectory() as parent:
        home = IsolatedHome(BASE_URL, parent_dir=Path(parent), extra_config={key: value})
        assert read_config(home)[key] == value
