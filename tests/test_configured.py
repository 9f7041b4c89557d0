"""``claimgraph.configured``: the half-life the hook can know without parsing the config file
is the one ``claimgraph.config`` resolves, or None (never another value)."""

from __future__ import annotations

import os

import pytest

from claimgraph import configured
from claimgraph.config import BY_NAME, config_path, load_settings
from claimgraph.curator.shortlists import half_life_stamp


class Marks:
    """A store's marks as the hook reads them, counting the reads."""

    def __init__(self, marks: dict | None = None) -> None:
        self.marks, self.reads = dict(marks or {}), 0

    def get(self, key: str):
        self.reads += 1
        return self.marks.get(key)


def settled(path: str) -> int:
    """An instant at which the file at ``path`` counts as settled (``SETTLED_NS``)."""
    return os.stat(path).st_mtime_ns + configured.SETTLED_NS


def env_for(tmp_path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config"), **extra}


def test_the_setting_and_its_default_are_the_configs_own():
    setting = BY_NAME[configured.HALF_LIFE_SETTING]
    assert setting.env_var == configured.HALF_LIFE_ENV
    assert setting.default == configured.DEFAULT_HALF_LIFE_DAYS


@pytest.mark.parametrize("extra", [{}, {"XDG_CONFIG_HOME": "relative/dir"},
                                   {"CLAIMGRAPH_CONFIG": "~/my.toml"},
                                   {"CLAIMGRAPH_CONFIG": "/etc/cg.toml"},
                                   {"XDG_CONFIG_HOME": ""}])
def test_the_config_file_is_where_the_config_looks(tmp_path, extra):
    environ = {**env_for(tmp_path), **extra}
    assert configured.config_file(environ) == str(config_path(environ))


def test_the_environment_wins_and_the_store_is_not_read(tmp_path):
    environ = env_for(tmp_path, CLAIMGRAPH_HALF_LIFE_DAYS=" 12.5 ")
    path = configured.config_file(environ)
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as out:
        out.write("half_life_days = 30\n")
    marks = Marks()
    assert configured.configured_half_life(environ, marks.get) == 12.5
    assert marks.reads == 0
    assert load_settings(environ=environ).value("half_life_days") == 12.5


@pytest.mark.parametrize("raw", ["0", "-3", "nan", "inf", "ninety"])
def test_an_invalid_environment_value_is_refused_as_every_command_refuses_it(tmp_path, raw):
    with pytest.raises(ValueError):
        configured.configured_half_life(env_for(tmp_path, CLAIMGRAPH_HALF_LIFE_DAYS=raw),
                                        Marks().get)


def test_no_file_or_a_file_that_never_names_it_gives_the_default_without_the_store(tmp_path):
    environ = env_for(tmp_path)
    marks = Marks()
    assert configured.configured_half_life(environ, marks.get) == 90.0
    path = configured.config_file(environ)
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as out:
        out.write('llm_cmd = "claude -p"\nbudget = 3\n')
    assert configured.configured_half_life(environ, marks.get) == 90.0
    assert marks.reads == 0
    assert load_settings(environ=environ).value("half_life_days") == 90.0


@pytest.mark.parametrize("text, value", [
    ("half_life_days = 30\n", 30.0),
    ("half-life-days = 7.5\n", 7.5),
    ('"half_life-days" = 14\n', 14.0),
    ("# half_life_days = 30\nbudget = 2\n", 90.0),  # named in a comment only
    ("[other]\nhalf_life_days = 30\n", 90.0),  # in a table: not a setting
])
def test_a_file_that_names_it_is_read_from_the_curators_stamp_while_unchanged(
        tmp_path, text, value):
    environ = env_for(tmp_path)
    path = configured.config_file(environ)
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as out:
        out.write(text)
    marks = Marks()
    assert configured.configured_half_life(environ, marks.get) is None  # nothing stamped
    assert half_life_stamp(environ, settled(path) - 1) is None  # written just now
    stamp = half_life_stamp(environ, settled(path))
    assert stamp is not None and stamp["file"] == path and stamp["half_life"] == value
    marks.marks[configured.half_life_mark(path)] = stamp
    assert configured.configured_half_life(environ, marks.get) == value
    assert load_settings(environ=environ).value("half_life_days") == value


def test_a_changed_file_or_another_file_is_not_read_from_the_stamp(tmp_path):
    environ = env_for(tmp_path)
    path = configured.config_file(environ)
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as out:
        out.write("half_life_days = 30\n")
    written = os.stat(path).st_mtime_ns - 10 * configured.SETTLED_NS
    os.utime(path, ns=(written, written))  # long ago: the edit below gets another time
    marks = Marks({configured.half_life_mark(path): half_life_stamp(environ, settled(path))})
    assert configured.configured_half_life(environ, marks.get) == 30.0
    with open(path, "w") as out:  # the same size: the stamp still tells it apart
        out.write("half_life_days = 60\n")
    assert configured.configured_half_life(environ, marks.get) is None
    other = env_for(tmp_path, CLAIMGRAPH_CONFIG=str(tmp_path / "elsewhere.toml"))
    os.replace(path, tmp_path / "elsewhere.toml")
    assert configured.configured_half_life(other, marks.get) is None
    moved = str(tmp_path / "elsewhere.toml")
    marks.marks[configured.half_life_mark(moved)] = half_life_stamp(other, settled(moved))
    assert configured.configured_half_life(other, marks.get) == 60.0


def test_no_stamp_for_a_file_with_an_invalid_value_or_one_that_changes_while_read(tmp_path):
    environ = env_for(tmp_path)
    path = configured.config_file(environ)
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as out:
        out.write("half_life_days = -1\n")
    assert half_life_stamp(environ, settled(path)) is None
    assert configured.stamp({"CLAIMGRAPH_CONFIG": str(tmp_path / "none.toml")},
                            lambda _path: 30.0, settled(path)) is None

    def rewritten(path: str) -> float:
        with open(path, "a") as out:
            out.write("# edited meanwhile\n")
        return 30.0
    assert configured.stamp(environ, rewritten, settled(path) + configured.SETTLED_NS) is None


def test_each_config_file_has_its_own_stamp(tmp_path):
    """A curator started by a daemon may see another config file than the agent's hook: each
    file is stamped under its own path, so neither pass undoes the other's."""
    agent = env_for(tmp_path)
    daemon = env_for(tmp_path, CLAIMGRAPH_CONFIG=str(tmp_path / "daemon.toml"))
    marks = Marks()
    for environ, text in ((agent, "half_life_days = 30\n"), (daemon, "half_life_days = 5\n")):
        path = configured.config_file(environ)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as out:
            out.write(text)
        stamp = half_life_stamp(environ, settled(path))
        marks.marks[configured.half_life_mark(stamp["file"])] = stamp
    assert configured.configured_half_life(agent, marks.get) == 30.0
    assert configured.configured_half_life(daemon, marks.get) == 5.0
