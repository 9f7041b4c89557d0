"""Settings: flag > environment (``CLAIMGRAPH_*``) > TOML config file > default
(docs/configuration.md).

Everything here is a pure function of ``flags``, ``environ`` and the file's text, so precedence
can be tested without touching the process environment. Each value remembers where it came from,
because ``claimgraph config`` shows that and every invalid value is reported with its origin.
To add a setting, add one row to ``SETTINGS``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from claimgraph.configured import (BLOCK_SETTINGS, DEFAULT_BUDGET_CHARS, DEFAULT_HALF_LIFE_DAYS,
                                  config_file, read_config)
from claimgraph.errors import ClaimgraphError

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Callable

Environ = Mapping[str, str]
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


class Rule:
    """An extra constraint beyond the type, and how to describe it in an error.

    Plain classes with slots, not dataclasses nor named tuples, here and below: every command
    loads its settings, ``dataclasses`` would bring ``inspect`` into every command's start-up,
    and a named tuple's class is built from generated source at import (~0.1 ms for two)."""

    __slots__ = ("holds", "description")

    def __init__(self, holds: Callable[[Any], bool], description: str) -> None:
        self.holds, self.description = holds, description


NON_NEGATIVE = Rule(lambda v: v >= 0, "≥ 0")
POSITIVE = Rule(lambda v: v > 0, "> 0")
FRACTION = Rule(lambda v: 0 <= v <= 1, "between 0 and 1")
LOG_LEVEL = Rule(lambda v: v in LOG_LEVELS, "(" + ", ".join(LOG_LEVELS) + ")")


def default_db(environ: Environ) -> str:
    """``$XDG_DATA_HOME/claimgraph/claims.db``, falling back to ``~/.local/share`` as XDG says."""
    return str(xdg_dir(environ, "XDG_DATA_HOME", ".local/share") / "claimgraph" / "claims.db")


class Setting:
    """One setting: its ``type`` is a key of _CONVERTERS ("int" | "float" | "str" | "level" |
    "path"), its ``default`` a value or a function of environ for defaults that depend on it;
    ``env`` names its variable when it is not ``CLAIMGRAPH_<NAME>``."""

    __slots__ = ("name", "type", "default", "env", "rule", "help")

    def __init__(self, name: str, type: str, default: Any, env: str = "",
                 rule: Rule | None = None, help: str = "") -> None:
        self.name, self.type, self.default = name, type, default
        self.env, self.rule, self.help = env, rule, help

    @property
    def env_var(self) -> str:
        return self.env or "CLAIMGRAPH_" + self.name.upper()

    def default_for(self, environ: Environ) -> Any:
        return self.default(environ) if callable(self.default) else self.default


SETTINGS: tuple[Setting, ...] = (
    Setting("db", "path", default_db,
            help="the store file; its sidecar files sit beside it"),
    Setting("lease_wait_ms", "int", 5000, rule=NON_NEGATIVE,
            help="how long a write waits for another writer's lease"),
    Setting("lease_ttl_ms", "int", 30000, rule=POSITIVE,
            help="a lease its holder stopped renewing this long ago may be broken"),
    Setting("half_life_days", "float", DEFAULT_HALF_LIFE_DAYS, rule=POSITIVE,
            help="confidence halves after this many days without reinforcement (wherever "
                 "memory is ranked: the SessionStart block, context, recall, the viewer)"),
    Setting("log_level", "level", "info", rule=LOG_LEVEL,
            help="the least severe event background runs write to the sidecar logs"),
    Setting("budget", "int", 20, rule=NON_NEGATIVE,
            help="most model calls one capture or curator pass may make (only with the "
                 "model extractor opted in; 0 = none)"),
    Setting("llm_cmd", "str", "claude -p",
            help="the model command (prompt on stdin) for the opt-in model extractor, the "
                 "judge and `audit --claims --deep`"),
    Setting("llm_timeout_ms", "int", 120000, rule=POSITIVE,
            help="a model call running longer is killed"),
    Setting("extractor", "str", "builtin",
            help="which extractors capture runs: builtin, or builtin,model to opt in"),
    Setting("dormancy_threshold", "float", 0.1, rule=FRACTION,
            help="facts whose decayed confidence falls below this go dormant"),
    Setting("sync_dir", "str", "<db>.oplog",
            help="the directory `claimgraph sync` exchanges operation logs through (a git "
                 "checkout, a synced folder); <db>.oplog: the store's own log directory"),
    Setting("sync_projects", "str", "<current project>",
            help="comma-separated project ids `claimgraph sync` publishes (never the user "
                 "scope); <current project>: the project of the directory sync runs in"),
    Setting("mcp_user_scope", "int", 0, rule=NON_NEGATIVE,
            help="1: memory_assert (MCP) may write the user scope, seen in every project; "
                 "0: only the server's project"),
    Setting("context_budget_chars", "int", DEFAULT_BUDGET_CHARS, rule=POSITIVE,
            help="most characters of the SessionStart block and of what `claimgraph "
                 "context` prints"),
)
BY_NAME = {setting.name: setting for setting in SETTINGS}


def xdg_dir(environ: Environ, variable: str, fallback: str) -> Path:
    """An XDG base directory; relative values are ignored, as the XDG spec requires."""
    value = environ.get(variable, "")
    if value and os.path.isabs(value):
        return Path(value)
    return Path(environ.get("HOME") or os.path.expanduser("~")) / fallback


def config_path(environ: Environ) -> Path:
    """``$CLAIMGRAPH_CONFIG``, else ``$XDG_CONFIG_HOME/claimgraph/config.toml``: the rule lives
    in ``claimgraph.configured``, which the SessionStart hook loads without this module."""
    return Path(config_file(environ))


def _expand_home(text: str, environ: Environ) -> Path:
    if text == "~" or text.startswith("~/"):
        return Path(environ.get("HOME") or os.path.expanduser("~")) / text[2:]
    return Path(text)


class Settings(Mapping):  # type: ignore[type-arg]  # str -> (value, source); typing unloaded
    """Effective settings: name -> (value, source), in table order; plus file warnings."""

    def __init__(self, resolved: dict[str, tuple[Any, str]], warnings: list[str],
                 file_path: Path) -> None:
        self._resolved = resolved
        self.warnings = warnings
        self.file_path = file_path

    def __getitem__(self, name: str) -> tuple[Any, str]:
        return self._resolved[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._resolved)

    def __len__(self) -> int:
        return len(self._resolved)

    def value(self, name: str) -> Any:
        return self._resolved[name][0]

    def source(self, name: str) -> str:
        return self._resolved[name][1]


def load_settings(flags: Mapping[str, Any] | None = None, environ: Environ | None = None,
                  file_path: str | os.PathLike[str] | None = None) -> Settings:
    """Resolve every setting; flags whose value is None count as not given (argparse default)."""
    environ = os.environ if environ is None else environ
    path = Path(file_path) if file_path is not None else config_path(environ)
    file_values, warnings = read_config_file(path, environ)
    resolved = {setting.name: _resolve(setting, flags or {}, environ, file_values, path)
                for setting in SETTINGS}
    return Settings(resolved, warnings, path)


def read_for_hook(environ: Environ) -> tuple[tuple[Any, str], dict[str, Any]]:
    """The hook's one parse of the config file: ``db`` as ``load_settings`` resolves it
    without flags (and its source; the other settings are not checked here: a bad value of
    another is for the commands that use it to refuse), and what the file says of the
    settings the SessionStart block depends on (``judge_block``), so the hook that had to
    parse the file for ``db`` takes them from here rather than from the curator's stamp.
    Raises ClaimgraphError when the file cannot give ``db`` (the hook then touches no
    store)."""
    file = config_file(environ)  # the stamp's key is this very string (``configured``)
    path = Path(file)
    file_values, _ = read_config_file(path, environ)
    db = _resolve(BY_NAME["db"], {}, environ, file_values, path)
    return db, judge_block(file, environ, file_values)


def judge_config_file(path: str, environ: Environ) -> dict[str, Any]:
    """``judge_block`` of the config file at ``path``, parsed here: what the curator stamps
    for the hook (``claimgraph.configured.stamp``). An unreadable file is refused too."""
    try:
        file_values, _ = read_config_file(Path(path), environ)
    except ClaimgraphError as error:
        return {"file": path, "refused": refusal_reason(error), "setting": None, "named": []}
    return judge_block(path, environ, file_values)


def judge_block(file: str, environ: Environ, file_values: Mapping[str, Any]) -> dict[str, Any]:
    """What every command makes of the parsed config file, for the SessionStart block:
    ``{"file", "settings": {name: value}}`` with each of ``configured.BLOCK_SETTINGS`` as the
    file gives it (its default when the file never names it; None for a bad value that a
    variable overrides, which no command then checks), or ``{"file", "refused", "setting",
    "named"}`` when every command refuses the file: a setting it names, and no variable
    overrides, has a bad value (``load_settings``' rule; ``db`` apart, which the hook and the
    curator are handed). ``setting``: that setting (None for a file that cannot be read: no
    variable makes it acceptable); ``named``: the block's settings the file names."""
    path = Path(file)
    for setting in SETTINGS:
        if setting.name == "db" or setting.name not in file_values:
            continue
        try:
            _resolve(setting, {}, environ, file_values, path)
        except ClaimgraphError as error:
            if not from_config_file(error):
                continue  # a bad variable: the file is not to blame (and its state says so)
            return {"file": file, "refused": refusal_reason(error), "setting": setting.name,
                    "named": [name for name in BLOCK_SETTINGS if name in file_values]}
    return {"file": file, "settings": {
        name: _file_value(BY_NAME[name], file_values, path, environ)
        if name in file_values else default
        for name, (_, default) in BLOCK_SETTINGS.items()}}


def _file_value(setting: Setting, file_values: Mapping[str, Any], path: Path,
                environ: Environ) -> Any:
    """The file's value of ``setting``, None when its rule refuses it (a variable overrides
    it: ``judge_block`` refuses the file otherwise)."""
    try:
        return coerce(setting, file_values[setting.name], f"file:{path}", environ)
    except ClaimgraphError:
        return None


def from_config_file(error: ClaimgraphError) -> bool:
    """Whether ``error`` refuses the config file (it cannot be read, or a value in it is bad),
    not a flag or a variable."""
    return error.type == "invalid-config" or (
        error.type == "invalid-setting"
        and str(error.data.get("source", "")).startswith("file:"))


def refusal_reason(error: ClaimgraphError) -> str:
    """What is wrong with the config file, without the bad value itself (the reason is kept
    in the store and the hook's log; a value in the wrong place may be a secret)."""
    setting = BY_NAME.get(str(error.data.get("setting")))
    if error.type == "invalid-setting" and setting is not None:
        where = str(error.data.get("source", "")).removeprefix("file:")
        return f"invalid {setting.name} in config file {where}: expected {_wanted(setting)}"
    return error.message


def _resolve(setting: Setting, flags: Mapping[str, Any], environ: Environ,
             file_values: Mapping[str, Any], path: Path) -> tuple[Any, str]:
    """The first layer that gives a value wins; the value is checked in that layer's name."""
    if flags.get(setting.name) is not None:
        return coerce(setting, flags[setting.name], "flag", environ), "flag"
    if environ.get(setting.env_var, "").strip():
        return coerce(setting, environ[setting.env_var], "env", environ), "env"
    if setting.name in file_values:
        source = f"file:{path}"
        return coerce(setting, file_values[setting.name], source, environ), source
    return setting.default_for(environ), "default"


def read_config_file(path: Path, environ: Environ) -> tuple[dict[str, Any], list[str]]:
    """Known keys of the TOML file (``-`` or ``_`` spelling), and warnings about the rest."""
    try:
        data = read_config(str(path))[1]  # a pipe there is refused, never waited on
    except FileNotFoundError:
        return {}, _missing_file_warnings(path, environ)
    except OSError as problem:
        raise _unreadable(path, problem) from None
    tomllib = _toml()  # only when there is a file to read
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as problem:
        raise _unreadable(path, problem) from None
    known = {key.replace("-", "_"): value for key, value in raw.items()
             if key.replace("-", "_") in BY_NAME}
    warnings = [_unknown_key_warning(key, path) for key in raw
                if key.replace("-", "_") not in BY_NAME]
    return known, warnings


def _toml() -> Any:
    import sys
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised only on Python 3.10
        import tomli as tomllib
    return tomllib


def _unreadable(path: Path, problem: Exception) -> ClaimgraphError:
    return ClaimgraphError("invalid-config", f"cannot read config file {path}: {problem}",
                           hint="fix or remove the file, or point CLAIMGRAPH_CONFIG elsewhere",
                           path=str(path))


def _missing_file_warnings(path: Path, environ: Environ) -> list[str]:
    if environ.get("CLAIMGRAPH_CONFIG", "").strip():
        return [f"config file {path} (from CLAIMGRAPH_CONFIG) does not exist; using defaults"]
    return []


def _unknown_key_warning(key: str, path: Path) -> str:
    import difflib
    close = difflib.get_close_matches(key.replace("-", "_"), list(BY_NAME), n=1)
    suggestion = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown setting {key!r} in {path} is ignored{suggestion}"


def coerce(setting: Setting, raw: Any, source: str, environ: Environ) -> Any:
    """Convert ``raw`` to the setting's type and check its rule, or say what is wrong and where."""
    try:
        value = _CONVERTERS[setting.type](raw, environ)
    except (TypeError, ValueError, OverflowError):  # the last: a TOML integer no float holds
        value = None
    if value is None or (setting.rule is not None and not setting.rule.holds(value)):
        raise _invalid(setting, raw, source)
    return value


def _invalid(setting: Setting, raw: Any, source: str) -> ClaimgraphError:
    """The refusal of a bad value. One from the config file is never echoed: the error lands
    in logs (a detached curator's or capture's output is ``<db>.curate.log``,
    ``<db>.capture.log``), and a value in the wrong place of a file may be a secret pasted
    there; the setting, the file and what it expects say what to fix. A flag's or a
    variable's value was typed for this command, and is shown."""
    where, fix = _origin(setting, source)
    if source.startswith("file:"):
        return ClaimgraphError(
            "invalid-setting", f"invalid {setting.name} in {where}: expected {_wanted(setting)}",
            hint=fix, setting=setting.name, source=source)
    shown = raw if isinstance(raw, (str, int, float)) else repr(raw)
    return ClaimgraphError(
        "invalid-setting",
        f"invalid {setting.name} {raw!r} from {where}: expected {_wanted(setting)}",
        hint=fix, setting=setting.name, value=shown, source=source)


def _wanted(setting: Setting) -> str:
    return _EXPECTED[setting.type] + (f" {setting.rule.description}" if setting.rule else "")


def _origin(setting: Setting, source: str) -> tuple[str, str]:
    """Where a bad value came from, and how to fix it there."""
    flag = "--" + setting.name.replace("_", "-")
    if source == "flag":
        return f"the command line ({flag})", f"pass a valid {flag}"
    if source == "env":
        return f"environment variable {setting.env_var}", f"fix or unset {setting.env_var}"
    path = source.removeprefix("file:")
    return f"config file {path}", f"fix or remove {setting.name} in {path}"


def _to_int(raw: Any, environ: Environ) -> int | None:
    if isinstance(raw, (bool, float)):
        return None
    return raw if isinstance(raw, int) else int(str(raw).strip())


def _to_float(raw: Any, environ: Environ) -> float | None:
    if isinstance(raw, bool):
        return None
    import math  # a float setting read from text or a file: a read's start never loads it
    value = float(raw if isinstance(raw, (int, float)) else str(raw).strip())
    return value if math.isfinite(value) else None


def _to_str(raw: Any, environ: Environ) -> str | None:
    if not isinstance(raw, str):
        return None
    return raw.strip() or None


def _to_level(raw: Any, environ: Environ) -> str | None:
    text = _to_str(raw, environ)
    return None if text is None else text.lower()


def _to_path(raw: Any, environ: Environ) -> str | None:
    """A file path (``~`` expanded), or a server store's URL kept exactly as given."""
    text = _to_str(os.fspath(raw) if isinstance(raw, os.PathLike) else raw, environ)
    if text is not None and text.startswith(("postgresql://", "postgres://")):
        return text
    return None if text is None else str(_expand_home(text, environ))


_CONVERTERS: dict[str, Callable[[Any, Environ], Any]] = {
    "int": _to_int, "float": _to_float, "str": _to_str, "level": _to_level, "path": _to_path}
_EXPECTED = {"int": "an integer", "float": "a number", "str": "non-empty text",
             "level": "a log level", "path": "a path"}
