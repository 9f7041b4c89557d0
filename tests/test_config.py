"""Settings precedence (flag > env > file > default), provenance, coercion and file problems."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claimgraph.config import SETTINGS, coerce, config_path, default_db, load_settings
from claimgraph.errors import ClaimgraphError


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """An explicit environ: the functions under test never read os.environ when given one."""
    return {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
            "XDG_DATA_HOME": str(tmp_path / "data")}


def write_config(environ: dict[str, str], text: str) -> Path:
    path = config_path(environ)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_with_nothing_given_every_setting_is_its_default(home):
    settings = load_settings({}, home)
    assert settings["db"] == (f"{home['XDG_DATA_HOME']}/claimgraph/claims.db", "default")
    assert settings.value("lease_wait_ms") == 5000 and settings.value("half_life_days") == 90.0
    assert settings.value("llm_cmd") == "claude -p" and settings.value("extractor") == "builtin"
    assert {source for _, (_, source) in settings.items()} == {"default"}
    assert list(settings) == [setting.name for setting in SETTINGS] and settings.warnings == []


@pytest.mark.parametrize("layers, expected", [
    ({"flag", "env", "file"}, (1, "flag")),
    ({"flag", "env"}, (1, "flag")),
    ({"flag", "file"}, (1, "flag")),
    ({"env", "file"}, (2, "env")),
    ({"file"}, (3, "file")),
    (set(), (20, "default")),
])
def test_precedence_is_flag_then_env_then_file_then_default(home, layers, expected):
    path = write_config(home, "budget = 3\n" if "file" in layers else "")
    environ = {**home, "CLAIMGRAPH_BUDGET": "2"} if "env" in layers else home
    flags = {"budget": 1} if "flag" in layers else {"budget": None}
    value, source = load_settings(flags, environ)["budget"]
    assert value == expected[0]
    assert source == (f"file:{path}" if expected[1] == "file" else expected[1])


def test_the_config_file_can_be_moved_with_claimgraph_config(home, tmp_path):
    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text('llm-cmd = "llm -m local"\nlog_level = "DEBUG"\n')
    settings = load_settings({}, {**home, "CLAIMGRAPH_CONFIG": str(elsewhere)})
    assert settings["llm_cmd"] == ("llm -m local", f"file:{elsewhere}")
    assert settings.value("log_level") == "debug" and settings.file_path == elsewhere


def test_an_explicit_file_path_argument_wins_over_the_environment(home, tmp_path):
    explicit = tmp_path / "explicit.toml"
    explicit.write_text("budget = 7\n")
    settings = load_settings({}, {**home, "CLAIMGRAPH_CONFIG": "/nonexistent.toml"}, explicit)
    assert settings["budget"] == (7, f"file:{explicit}")


def test_a_missing_claimgraph_config_file_is_a_warning_not_an_error(home):
    settings = load_settings({}, {**home, "CLAIMGRAPH_CONFIG": "/nonexistent/config.toml"})
    assert settings.value("budget") == 20
    assert "does not exist" in settings.warnings[0]


def test_env_values_are_read_from_their_claimgraph_variables_and_blank_means_unset(home):
    environ = {**home, "CLAIMGRAPH_LEASE_WAIT_MS": "250", "CLAIMGRAPH_DORMANCY_THRESHOLD": "0.25",
               "CLAIMGRAPH_LLM_CMD": "  ", "CLAIMGRAPH_DB": "~/mem/claims.db"}
    settings = load_settings({}, environ)
    assert settings["lease_wait_ms"] == (250, "env")
    assert settings["dormancy_threshold"] == (0.25, "env")
    assert settings["llm_cmd"] == ("claude -p", "default")
    assert settings["db"] == (f"{home['HOME']}/mem/claims.db", "env")


def test_unrelated_flags_are_ignored(home):
    settings = load_settings({"command": "facts", "json": True, "db": "/tmp/x.db"}, home)
    assert settings["db"] == ("/tmp/x.db", "flag")


@pytest.mark.parametrize("raw", ["abc", "2.5", "-1", "1e3"])
def test_a_bad_env_value_names_the_setting_the_value_and_the_variable(home, raw):
    environ = {**home, "CLAIMGRAPH_LEASE_WAIT_MS": raw}
    with pytest.raises(ClaimgraphError) as bad:
        load_settings({}, environ)
    error = bad.value
    assert error.type == "invalid-setting" and error.data["setting"] == "lease_wait_ms"
    assert "lease_wait_ms" in error.message and repr(raw) in error.message
    assert "CLAIMGRAPH_LEASE_WAIT_MS" in error.message and error.data["source"] == "env"
    assert "CLAIMGRAPH_LEASE_WAIT_MS" in error.hint


@pytest.mark.parametrize("line, setting", [
    ("budget = 2.5", "budget"),
    ("budget = true", "budget"),
    ("half_life_days = 0", "half_life_days"),
    ("dormancy_threshold = 1.5", "dormancy_threshold"),
    ('log_level = "loud"', "log_level"),
    ("llm_cmd = 3", "llm_cmd"),
    ('half_life_days = "nan"', "half_life_days"),
    ("half_life_days = 1" + "0" * 400, "half_life_days"),  # an integer no float can hold
    ("dormancy_threshold = 1" + "0" * 400, "dormancy_threshold"),
])
def test_a_bad_file_value_is_reported_with_the_file_path(home, line, setting):
    path = write_config(home, line + "\n")
    with pytest.raises(ClaimgraphError) as bad:
        load_settings({}, home)
    assert bad.value.data["setting"] == setting and str(path) in bad.value.message
    assert bad.value.data["source"] == f"file:{path}"


def test_a_bad_flag_value_says_it_came_from_the_command_line(home):
    with pytest.raises(ClaimgraphError) as bad:
        load_settings({"lease_wait_ms": "-5"}, home)
    assert "--lease-wait-ms" in bad.value.message and bad.value.data["source"] == "flag"


def test_values_are_coerced_to_their_types(home):
    flags = {"lease_ttl_ms": "1500", "half_life_days": "45.5", "budget": 0}
    settings = load_settings(flags, {**home, "CLAIMGRAPH_LOG_LEVEL": "Warning"})
    assert settings.value("lease_ttl_ms") == 1500 and settings.value("half_life_days") == 45.5
    assert settings.value("budget") == 0 and settings.value("log_level") == "warning"


def test_an_unparsable_config_file_is_an_invalid_config_error(home):
    path = write_config(home, "budget = = 3\n")
    with pytest.raises(ClaimgraphError) as bad:
        load_settings({}, home)
    assert bad.value.type == "invalid-config"
    assert str(path) in bad.value.message and "line 1" in bad.value.message


def test_unknown_keys_in_the_file_are_warnings_with_a_suggestion(home):
    path = write_config(home, "budgett = 5\n[colors]\nfg = 1\nbudget = 4\n")
    settings = load_settings({}, home)
    assert settings.value("budget") == 20
    assert any("'budgett'" in w and "did you mean 'budget'" in w and str(path) in w
               for w in settings.warnings)
    assert any("'colors'" in w for w in settings.warnings) and len(settings.warnings) == 2


def test_relative_xdg_dirs_are_ignored_as_the_spec_requires(tmp_path):
    environ = {"HOME": str(tmp_path), "XDG_DATA_HOME": "relative/data"}
    assert default_db(environ) == f"{tmp_path}/.local/share/claimgraph/claims.db"
    assert config_path(environ) == tmp_path / ".config/claimgraph/config.toml"


def test_without_an_environ_argument_the_process_environment_is_used():
    settings = load_settings({})
    assert settings["db"] == (os.environ["CLAIMGRAPH_DB"], "env")


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.name)
def test_every_default_passes_its_own_validation(setting, home):
    default = setting.default_for(home)
    assert coerce(setting, default, "default", home) == default
    assert setting.env_var.startswith("CLAIMGRAPH_")
