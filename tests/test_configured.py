"""``claimgraph.configured``: the settings of the SessionStart block that the hook can know
without parsing the config file are the ones ``claimgraph.config`` resolves; when only parsing
could tell, it says so and gives the values the curator read last (never another guess)."""

from __future__ import annotations

import os

import pytest

from claimgraph import configured
from claimgraph.config import BY_NAME, config_path, load_settings
from claimgraph.curator.shortlists import settings_stamp
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.briefing import DEFAULT_BUDGET_CHARS

HALF_LIFE, BUDGET = configured.HALF_LIFE_SETTING, configured.BUDGET_SETTING
DEFAULTS = {HALF_LIFE: 90.0, BUDGET: 10_000}


class Marks:
    """A store's marks as the hook reads them, counting the reads."""

    def __init__(self, marks: dict | None = None) -> None:
        self.marks, self.reads = dict(marks or {}), 0

    def get(self, key: str):
        self.reads += 1
        return self.marks.get(key)

    def stamp(self, environ: dict[str, str]) -> dict:
        """Leave the curator's stamp of ``environ``'s config file, as a pass does."""
        path = configured.config_file(environ)
        stamp = settings_stamp(environ, settled(path), self.marks.get)
        assert stamp is not None
        self.marks[configured.settings_mark(path)] = stamp
        return stamp


def no_mark(key: str) -> None:
    return None


def settled(path: str) -> int:
    """An instant at which the file at ``path`` counts as settled (``SETTLED_NS``)."""
    return os.stat(path).st_mtime_ns + configured.SETTLED_NS


def env_for(tmp_path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config"), **extra}


def write_config(environ: dict[str, str], text: str, long_ago: bool = False) -> str:
    path = configured.config_file(environ)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as out:
        out.write(text)
    if long_ago:  # so that an edit after it gets another time
        written = os.stat(path).st_mtime_ns - 10 * configured.SETTLED_NS
        os.utime(path, ns=(written, written))
    return path


def the_configs(environ: dict[str, str]) -> dict:
    """What ``claimgraph.config`` resolves for the block's settings (no flags)."""
    settings = load_settings(environ=environ)
    return {name: settings.value(name) for name in configured.BLOCK_SETTINGS}


def test_the_settings_and_their_defaults_are_the_configs_own():
    assert set(configured.BLOCK_SETTINGS) == {HALF_LIFE, BUDGET}
    for name, (kind, default) in configured.BLOCK_SETTINGS.items():
        setting = BY_NAME[name]
        assert setting.env_var == configured.env_var(name)
        assert setting.default == default and type(default) is kind
        assert setting.type == kind.__name__
        assert not setting.rule.holds(0) and setting.rule.holds(1)  # above 0, as checked here
    assert configured.env_var(HALF_LIFE) == "CLAIMGRAPH_HALF_LIFE_DAYS"
    assert configured.DEFAULT_BUDGET_CHARS == DEFAULT_BUDGET_CHARS


@pytest.mark.parametrize("extra", [{}, {"XDG_CONFIG_HOME": "relative/dir"},
                                   {"CLAIMGRAPH_CONFIG": "~/my.toml"},
                                   {"CLAIMGRAPH_CONFIG": "/etc/cg.toml"},
                                   {"XDG_CONFIG_HOME": ""}])
def test_the_config_file_is_where_the_config_looks(tmp_path, extra):
    environ = {**env_for(tmp_path), **extra}
    assert configured.config_file(environ) == str(config_path(environ))


def test_the_environment_wins_and_the_store_is_not_read(tmp_path):
    environ = env_for(tmp_path, CLAIMGRAPH_HALF_LIFE_DAYS=" 12.5 ",
                      CLAIMGRAPH_CONTEXT_BUDGET_CHARS=" 4000 ")
    write_config(environ, "half_life_days = 30\ncontext_budget_chars = 2500\n")
    marks = Marks()
    values, changed, refused = configured.block_settings(environ, marks.get)
    assert values == {HALF_LIFE: 12.5, BUDGET: 4000} == the_configs(environ)
    assert marks.reads == 0 and not changed


def test_a_setting_the_environment_leaves_unset_is_still_the_files(tmp_path):
    environ = env_for(tmp_path, CLAIMGRAPH_CONTEXT_BUDGET_CHARS="4000")
    write_config(environ, "half_life_days = 30\ncontext-budget-chars = 2500\n")
    marks = Marks()
    assert configured.block_settings(environ, marks.get) == (
        DEFAULTS | {BUDGET: 4000}, True, None)
    marks.stamp(environ)
    values, changed, refused = configured.block_settings(environ, marks.get)
    assert values == {HALF_LIFE: 30.0, BUDGET: 4000} == the_configs(environ)
    assert not changed


@pytest.mark.parametrize("variable, raw", [
    ("CLAIMGRAPH_HALF_LIFE_DAYS", raw) for raw in ("0", "-3", "nan", "inf", "ninety")] + [
    ("CLAIMGRAPH_CONTEXT_BUDGET_CHARS", raw) for raw in ("0", "-5", "1.5", "1e4", "ten")])
def test_an_invalid_environment_value_is_refused_as_every_command_refuses_it(
        tmp_path, variable, raw):
    environ = env_for(tmp_path, **{variable: raw})
    with pytest.raises(ValueError):
        configured.block_settings(environ, Marks().get)
    with pytest.raises(ClaimgraphError, match="invalid"):
        load_settings(environ=environ)


def test_no_file_or_a_file_that_never_names_them_gives_the_defaults_without_the_store(tmp_path):
    environ = env_for(tmp_path)
    marks = Marks()
    assert configured.block_settings(environ, marks.get) == (DEFAULTS, False, None)
    write_config(environ, 'llm_cmd = "claude -p"\nbudget = 3\n')
    assert configured.block_settings(environ, marks.get) == (DEFAULTS, False, None)
    assert marks.reads == 0
    assert the_configs(environ) == DEFAULTS


@pytest.mark.parametrize("text, values", [
    ("half_life_days = 30\n", {HALF_LIFE: 30.0}),
    ("half-life-days = 7.5\n", {HALF_LIFE: 7.5}),
    ('"half_life-days" = 14\n', {HALF_LIFE: 14.0}),
    ("context_budget_chars = 2500\n", {BUDGET: 2500}),
    ("context-budget-chars = 800\nhalf_life_days = 20\n", {BUDGET: 800, HALF_LIFE: 20.0}),
    ("# half_life_days = 30\n# context_budget_chars = 9\nbudget = 2\n", {}),  # comments only
    ("[other]\nhalf_life_days = 30\ncontext_budget_chars = 9\n", {}),  # in a table
    # a quoted key whose escapes spell the name (\u, \U; \x in TOML 1.1's newer tomli)
    ('"half_life_\\u0064ays" = 21\n', {HALF_LIFE: 21.0}),
    ('"context_budget_\\U00000063hars" = 1200\n', {BUDGET: 1200}),
])
def test_a_file_that_names_them_is_read_from_the_curators_stamp_while_unchanged(
        tmp_path, text, values):
    environ = env_for(tmp_path)
    path = write_config(environ, text)
    marks = Marks()
    # nothing stamped yet
    assert configured.block_settings(environ, marks.get) == (DEFAULTS, True, None)
    assert settings_stamp(environ, settled(path) - 1, no_mark) is None  # written just now
    stamp = marks.stamp(environ)
    assert stamp["file"] == path and stamp["settings"] == DEFAULTS | values
    assert configured.block_settings(environ, marks.get) == (DEFAULTS | values, False, None)
    assert the_configs(environ) == DEFAULTS | values


def test_a_changed_file_gives_the_values_read_last_until_it_is_stamped_again(tmp_path):
    environ = env_for(tmp_path)
    path = write_config(environ, "half_life_days = 30\ncontext_budget_chars = 900\n", True)
    marks = Marks()
    marks.stamp(environ)
    read = {HALF_LIFE: 30.0, BUDGET: 900}
    assert configured.block_settings(environ, marks.get) == (read, False, None)
    write_config(environ, "half_life_days = 60\ncontext_budget_chars = 700\n")  # same size
    assert configured.block_settings(environ, marks.get) == (read, True, None)
    other = env_for(tmp_path, CLAIMGRAPH_CONFIG=str(tmp_path / "elsewhere.toml"))
    os.replace(path, tmp_path / "elsewhere.toml")
    assert configured.block_settings(other, marks.get) == (DEFAULTS, True, None)  # never read
    marks.stamp(other)
    assert configured.block_settings(other, marks.get) == ({HALF_LIFE: 60.0, BUDGET: 700},
                                                           False, None)


@pytest.mark.parametrize("held", [{}, {BUDGET: 9.5}, {BUDGET: True}, {BUDGET: 0},
                                  {BUDGET: "900"}, {HALF_LIFE: -1}])
def test_a_stamp_without_a_valid_value_of_a_named_setting_tells_none(tmp_path, held):
    environ = env_for(tmp_path)
    path = write_config(environ, "half_life_days = 30\ncontext_budget_chars = 900\n")
    stamp = settings_stamp(environ, settled(path), no_mark)
    stamp["settings"] = {HALF_LIFE: 30.0, **held}
    marks = Marks({configured.settings_mark(path): stamp})
    values, changed, refused = configured.block_settings(environ, marks.get)
    assert changed and values[BUDGET] == DEFAULTS[BUDGET]
    assert values[HALF_LIFE] == (90.0 if HALF_LIFE in held else 30.0)


REFUSED_TEXTS = [
    ("half_life_days = -1\n", "invalid half_life_days"),
    ("context_budget_chars = 0\n", "invalid context_budget_chars"),
    ("context_budget_chars = 12.5\n", "invalid context_budget_chars"),
    ("half_life_days = 30\nlease_wait_ms = -5\n", "invalid lease_wait_ms"),  # another setting
    ("half_life_days = [\n", "cannot read config file"),
]


@pytest.mark.parametrize("text, reason", REFUSED_TEXTS)
def test_a_file_every_command_refuses_is_stamped_refused_with_the_values_read_last(
        tmp_path, text, reason):
    """The refusal is stamped with the file's state, so the hook knows the curator judged it
    (and starts none to judge it again); the values are the ones its last good stamp held,
    which the hook keeps using, and the reason never quotes the bad value."""
    environ = env_for(tmp_path)
    write_config(environ, "half_life_days = 30\ncontext_budget_chars = 900\n", long_ago=True)
    marks = Marks()
    marks.stamp(environ)
    path = write_config(environ, text, long_ago=True)  # (another time than the fix's below)
    with pytest.raises(ClaimgraphError):
        load_settings(environ=environ)  # every command refuses it
    read = {HALF_LIFE: 30.0, BUDGET: 900}
    # a setting the refused file names: the value read last; one it never names: the default
    kept = DEFAULTS | {name: value for name, value in read.items()
                       if configured.names_setting(text.encode(), name)}
    assert configured.block_settings(environ, marks.get) == (kept, True, None)  # not judged yet
    stamp = marks.stamp(environ)
    assert stamp["state"] == configured.file_state(os.stat(path))
    assert reason in stamp["refused"] and path in stamp["refused"]
    said = stamp["refused"].replace(path, "<path>")  # (pytest's folders are numbered)
    assert "-1" not in said and "-5" not in said
    assert stamp["settings"] == read
    values, changed, refused = configured.block_settings(environ, marks.get)
    assert not changed and refused == stamp["refused"]
    assert values == kept
    assert configured.refusal(environ, marks.get) == stamp["refused"]
    assert marks.stamp(environ) == stamp  # judged again: the same stamp, the values kept
    write_config(environ, "half_life_days = 45\n")  # fixed: judged anew, and accepted
    assert configured.refusal(environ, marks.get) is None
    assert configured.block_settings(environ, marks.get) == (DEFAULTS | {HALF_LIFE: 30.0},
                                                             True, None)
    assert marks.stamp(environ)["settings"] == DEFAULTS | {HALF_LIFE: 45.0}


def test_a_refused_file_never_read_before_gives_the_defaults(tmp_path):
    environ = env_for(tmp_path)
    write_config(environ, "half_life_days = -1\ncontext_budget_chars = 900\n")
    marks = Marks()
    stamp = marks.stamp(environ)
    assert stamp["settings"] == {} and "invalid half_life_days" in stamp["refused"]
    assert configured.block_settings(environ, marks.get) == (DEFAULTS, False, stamp["refused"])


def test_a_bad_value_a_variable_overrides_refuses_nothing(tmp_path):
    """``load_settings`` takes the variable and never checks the file's value: neither does
    the stamp, which holds no value for it (the hook, once the variable is gone, has the
    curator judge the file again)."""
    environ = env_for(tmp_path, CLAIMGRAPH_HALF_LIFE_DAYS="12")
    write_config(environ, "half_life_days = -1\ncontext_budget_chars = 900\n")
    load_settings(environ=environ)
    stamp = Marks().stamp(environ)
    assert "refused" not in stamp and stamp["settings"] == {HALF_LIFE: None, BUDGET: 900}


@pytest.mark.parametrize("variable", ["CLAIMGRAPH_HALF_LIFE_DAYS", "CLAIMGRAPH_LEASE_WAIT_MS"])
def test_a_refusal_a_variable_of_the_hooks_overrides_does_not_hold_there(tmp_path, variable):
    """A curator whose environment lacks the variable (a shell's ``claimgraph curate``, a
    daemon's) stamps the file refused; a hook whose environment sets it, where every command
    accepts the file, neither honours that refusal (no false warning, and past the live limit
    a curator is still started) nor keeps it: the file is unjudged there, and the stamp of
    the curator it starts then holds."""
    bad = "half_life_days = -1\n" if "HALF" in variable else "lease_wait_ms = -5\n"
    shell = env_for(tmp_path)
    agent = env_for(tmp_path, **{variable: "12"})
    write_config(shell, bad + "context_budget_chars = 900\n", long_ago=True)
    marks = Marks()
    assert "refused" in marks.stamp(shell)
    load_settings(environ=agent)  # every command the hook starts accepts the file
    assert configured.refusal(agent, marks.get) is None
    values, changed, refused = configured.block_settings(agent, marks.get)
    assert changed and refused is None
    assert "refused" not in marks.stamp(agent)  # the curator the hook starts
    values, changed, refused = configured.block_settings(agent, marks.get)
    assert values[BUDGET] == 900 and not changed and refused is None


def test_no_stamp_without_a_file_or_for_one_that_changes_while_read(tmp_path):
    environ = env_for(tmp_path)
    path = write_config(environ, "half_life_days = 30\n")
    assert configured.stamp({"CLAIMGRAPH_CONFIG": str(tmp_path / "none.toml")},
                            lambda _path: {"settings": DEFAULTS}, settled(path)) is None

    def rewritten(path: str) -> dict:
        with open(path, "a") as out:
            out.write("# edited meanwhile\n")
        return {"settings": DEFAULTS}
    assert configured.stamp(environ, rewritten, settled(path) + configured.SETTLED_NS) is None


def test_each_config_file_has_its_own_stamp(tmp_path):
    """A curator started by a daemon may see another config file than the agent's hook: each
    file is stamped under its own path, so neither pass undoes the other's."""
    agent = env_for(tmp_path)
    daemon = env_for(tmp_path, CLAIMGRAPH_CONFIG=str(tmp_path / "daemon.toml"))
    marks = Marks()
    for environ, text in ((agent, "half_life_days = 30\n"), (daemon, "context_budget_chars = 5\n")):
        write_config(environ, text)
        marks.stamp(environ)
    assert configured.block_settings(agent, marks.get) == (
        DEFAULTS | {HALF_LIFE: 30.0}, False, None)
    assert configured.block_settings(daemon, marks.get) == (DEFAULTS | {BUDGET: 5}, False, None)


# The judgement the curator stamps and the hook's own parse gives: every command's.

JUDGED_TEXTS = [
    "", "half_life_days = 30\n", "context-budget-chars = 700\nbudget = 3\n",
    "half_life_days = -1\n", "half_life_days = 'ten'\n", "context_budget_chars = 1.5\n",
    "lease_ttl_ms = 0\n", "log_level = 'loud'\nhalf_life_days = 4\n", "dormancy_threshold = 2\n",
    "half_life_days = [\n", "unknown_key = 1\nhalf_life_days = 8\n",
    'db = [1, 2]\nhalf_life_days = 6\n',  # db apart: the curator and the hook are handed it
]


@pytest.mark.parametrize("text", JUDGED_TEXTS)
@pytest.mark.parametrize("variables", [{}, {"CLAIMGRAPH_HALF_LIFE_DAYS": "12"},
                                       {"CLAIMGRAPH_LEASE_TTL_MS": "100",
                                        "CLAIMGRAPH_LOG_LEVEL": "debug"}])
def test_the_file_is_refused_exactly_when_every_command_refuses_it(tmp_path, text, variables):
    """``judge_config_file`` refuses the file when ``load_settings`` (given the store, as the
    curator is) refuses it for the file's sake; otherwise each block setting is the file's
    value, the one every command resolves wherever no variable sets it."""
    from claimgraph.config import judge_config_file

    environ = env_for(tmp_path, **variables)
    path = write_config(environ, text)
    judged = judge_config_file(path, environ)
    assert judged["file"] == path
    try:
        settings = load_settings({"db": str(tmp_path / "m.db")}, environ)
    except ClaimgraphError as error:
        assert "refused" in judged and judged["refused"]
        assert error.data.get("setting", "") in judged["refused"]
        return
    assert "refused" not in judged
    for name in configured.BLOCK_SETTINGS:
        if not settings.source(name).startswith("env"):
            assert judged["settings"][name] == settings.value(name)


@pytest.mark.parametrize("text, values, refused", [
    ('db = "/m.db"\nhalf_life_days = 30\n', {HALF_LIFE: 30.0}, None),
    ('db = "/m.db"\ncontext_budget_chars = 700\n', {BUDGET: 700}, None),
    ('db = "/m.db"\nhalf_life_days = -1\n', {HALF_LIFE: 25.0}, "invalid half_life_days"),
    ('db = "/m.db"\nlease_wait_ms = -1\n', {}, "invalid lease_wait_ms"),
])
def test_the_hooks_own_parse_wins_over_the_stamp(tmp_path, text, values, refused):
    """What the hook parsed to find ``db`` gives the block's settings (the stamp of another
    version is not read), whatever way the config file's path is spelled; a refused file
    gives the values the stamp holds, read from it last."""
    from claimgraph.config import read_for_hook

    environ = env_for(tmp_path, CLAIMGRAPH_CONFIG=f"{tmp_path}//cfg/./config.toml")
    write_config(environ, "half_life_days = 25\ncontext_budget_chars = 600\n", long_ago=True)
    marks = Marks()
    marks.stamp(environ)
    write_config(environ, text)
    (db, source), judged = read_for_hook(environ)
    assert (db, source) == ("/m.db", f"file:{config_path(environ)}")
    values_, changed, why = configured.block_settings(environ, marks.get, judged)
    assert values_ == DEFAULTS | values and not changed
    assert (why is None) == (refused is None) and (refused or "") in (why or "")
    assert marks.reads == (1 if refused and values else 0)
    assert configured.refusal(environ, marks.get, judged) == why


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_config_path_that_is_no_regular_file_is_refused_without_waiting(tmp_path):
    """A pipe (nobody writing) or a folder at the config path: refused at once, by every
    reader (the hook's ``read_config``, the commands' ``read_config_file``); a plain open of
    the pipe would wait for a writer forever."""
    from claimgraph.config import read_config_file
    from claimgraph.errors import ClaimgraphError

    pipe, folder, plain = tmp_path / "pipe.toml", tmp_path / "folder.toml", tmp_path / "c.toml"
    os.mkfifo(pipe)
    folder.mkdir()
    plain.write_text("half_life_days = 7\n")
    for path in (pipe, folder):
        with pytest.raises(OSError, match="not a regular file"):
            configured.read_config(str(path))
        with pytest.raises(ClaimgraphError, match="not a regular file"):
            read_config_file(path, {})
    assert configured.read_config(str(plain))[1] == b"half_life_days = 7\n"
    assert read_config_file(plain, {}) == ({"half_life_days": 7}, [])


def test_a_rewrite_the_state_cannot_tell_apart_is_told_by_the_bytes(tmp_path):
    """``cp -p`` keeps the modification time, and within one tick of the file system's clock
    the change time, size and inode can all be the same: the state of the new version is the
    old one's. The stamp is made to hold the new version's state here, as such a write would
    leave it; the bytes differ, so the stamp is not the file's (the values read last are used
    and the curator is to read the file again), and a refusal stamped for the old bytes does
    not hold for the new ones."""
    environ = env_for(tmp_path)
    path = write_config(environ, "half_life_days = 30\n", True)
    marks = Marks()
    marks.stamp(environ)
    mark = marks.marks[configured.settings_mark(path)]
    write_config(environ, "half_life_days = 60\n", True)  # same size, an old time
    mark["state"] = configured.file_state(os.stat(path))  # what one tick would leave
    assert configured.block_settings(environ, marks.get) == (
        DEFAULTS | {HALF_LIFE: 30.0}, True, None)
    marks.stamp(environ)
    assert configured.block_settings(environ, marks.get) == (
        DEFAULTS | {HALF_LIFE: 60.0}, False, None)
    write_config(environ, "half_life_days = -1\n", True)
    refused = marks.stamp(environ)
    assert "invalid half_life_days" in refused["refused"]
    assert configured.refusal(environ, marks.get) == refused["refused"]
    write_config(environ, "half_life_days = 7\n", True)  # accepted, same size again
    marks.marks[configured.settings_mark(path)]["state"] = configured.file_state(os.stat(path))
    assert configured.refusal(environ, marks.get) is None
    assert configured.block_settings(environ, marks.get)[1:] == (True, None)


@pytest.mark.parametrize("text", ["half_life_days = 30\n", "half_life_days = -1\n"])
def test_a_stamp_from_before_the_digest_is_read_once_more_then_holds(tmp_path, text):
    """After an upgrade the stamps hold no digest. Until the curator stamps the file again,
    such a stamp is neither a refusal (a refused file would otherwise never be judged anew)
    nor gone: the hook keeps the values it holds and has one curator read the file; that
    curator's stamp replaces the old one (it differs), and from then on the file counts as
    read, so no further curator is started for it."""
    from claimgraph.curator.shortlists import leave_stamp
    from claimgraph.store.memory import MemoryStore

    environ = env_for(tmp_path)
    path = write_config(environ, "half_life_days = 30\n", True)
    key = configured.settings_mark(path)
    store = MemoryStore()
    leave_stamp(store, settings_stamp(environ, settled(path), no_mark))
    path = write_config(environ, text, True)
    new = settings_stamp(environ, settled(path), store.get_mark)
    old = {k: v for k, v in new.items() if k != "digest"}  # as the previous version wrote it
    store.set_mark(key, old)
    assert configured.block_settings(environ, store.get_mark) == (
        DEFAULTS | {HALF_LIFE: 30.0}, True, None)
    assert configured.refusal(environ, store.get_mark) is None
    leave_stamp(store, settings_stamp(environ, settled(path), store.get_mark))
    assert store.get_mark(key) == new
    values, changed, refused = configured.block_settings(environ, store.get_mark)
    assert values == DEFAULTS | {HALF_LIFE: 30.0} and not changed
    assert refused == new.get("refused") and configured.refusal(environ, store.get_mark) == refused
