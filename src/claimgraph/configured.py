"""The settings the SessionStart block depends on, as a path that may not parse TOML knows them.

The hook's block is ranked by decayed confidence (``half_life_days``) and cut to a number of
characters (``context_budget_chars``), and ``claimgraph context`` and the curator read both
through ``claimgraph.config``. But the hook runs before every session of the agent, and
reading the config file there means ``tomllib``, which loads ``re``'s compiler, ``string``,
``typing`` and ``datetime`` (about 35 ms; docs/internals.md, "Start-up"). So the hook resolves
each of ``BLOCK_SETTINGS`` the way ``claimgraph.config`` does, as far as it can without parsing:

- its variable (``$CLAIMGRAPH_HALF_LIFE_DAYS``, ``$CLAIMGRAPH_CONTEXT_BUDGET_CHARS``), when set,
  wins over the file there as here;
- no config file, or one that never names the setting: the default;
- a file that names it: the curator, which parses the file on each pass, leaves in the store
  what that file says of every such setting, the file's ``os.stat`` when it read it and a
  digest of its bytes (``stamp``; one mark per file, ``settings_mark(path)``). While the file
  is unchanged (the same state and the same bytes: ``is_current``), those
  values are the file's; once it has changed, the hook cannot know them: it uses the values
  the curator read last (the default for one it never read) and has the curator read the file
  again, so the next start uses the new ones (``block_settings``, docs/hooks.md);
- a file every command refuses (it does not parse, or a value in it is bad): the curator
  refuses it too, but stamps it first, saying why, with the values of the file's previous
  stamp. While the file stays so, the hook uses those values (the ones read from it last, the
  default for one never read) and starts no curator to refuse it again; an edit changes its
  state, and the curator reads it anew;
- a file the hook parsed anyway (its bytes could name ``db``, ``hooks.spool``): what that
  parse said (``config.judge_block``), not the stamp, which may be of another version.

Standard library only: what the hook loads anyway (``os``, ``math``), and ``zlib`` once
the file is read for a setting it names.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Callable

#: ``claimgraph.config``'s settings of these names, with their defaults (``config.SETTINGS``
#: takes them from here); their variables are ``CLAIMGRAPH_<NAME>`` as there.
HALF_LIFE_SETTING = "half_life_days"
DEFAULT_HALF_LIFE_DAYS = 90.0
BUDGET_SETTING = "context_budget_chars"
DEFAULT_BUDGET_CHARS = 10_000  # ``logic.briefing.DEFAULT_BUDGET_CHARS`` (a test holds them equal)
#: Every setting the SessionStart block depends on: name -> (type, default); both must be
#: above 0, as the config's rule for each says.
BLOCK_SETTINGS: dict[str, tuple[type, float | int]] = {
    HALF_LIFE_SETTING: (float, DEFAULT_HALF_LIFE_DAYS),
    BUDGET_SETTING: (int, DEFAULT_BUDGET_CHARS),
}
#: The store marks the curator leaves, one per config file it read (a daemon's environment may
#: name another file than the agent's): ``context:settings:<path>`` = {"file", "state", "digest",
#: "settings": {name: value}}, and "refused" (why) and "refused_setting" (the one refused, None
#: when the file cannot be read) for a file every command refuses (docs/store.md).
SETTINGS_PREFIX = "context:settings:"
#: A file's times come from a coarse clock (a few ms; 1 or 2 s on some file systems): a file
#: written this recently could be written again within the same tick, at the same size, and
#: its state would not change. The curator stamps only a file whose modification time is
#: older than this. That time is the file's to set (``cp -p``, ``touch -d``, an unpacked
#: archive keep an old one), so this is not what tells versions apart: the stamp's digest of
#: the bytes is (``file_digest``); a state that moved says so before any digest is taken.
SETTLED_NS = 2_000_000_000


def config_file(environ: Mapping[str, str]) -> str:
    """``$CLAIMGRAPH_CONFIG``, else ``$XDG_CONFIG_HOME/claimgraph/config.toml`` (a relative
    ``XDG_CONFIG_HOME`` is ignored, as the XDG spec requires): ``config.config_path``'s rule."""
    home = environ.get("HOME") or os.path.expanduser("~")
    explicit = environ.get("CLAIMGRAPH_CONFIG", "").strip()
    if explicit:
        return os.path.join(home, explicit[2:]) if explicit == "~" or explicit.startswith(
            "~/") else explicit
    base = environ.get("XDG_CONFIG_HOME", "")
    if not base or not os.path.isabs(base):
        base = os.path.join(home, ".config")
    return os.path.join(base, "claimgraph", "config.toml")


def env_var(name: str) -> str:
    """The variable that sets ``name``: ``config.Setting.env_var``'s rule for these settings."""
    return "CLAIMGRAPH_" + name.upper()


def from_environment(environ: Mapping[str, str], name: str) -> float | int | None:
    """The setting ``name``'s variable as ``claimgraph.config`` reads it, None when unset;
    ValueError when it is no finite number above 0 (every command refuses it too)."""
    raw = environ.get(env_var(name), "").strip()
    if not raw:
        return None
    kind = BLOCK_SETTINGS[name][0]
    value = kind(raw)
    if kind is float:
        import math  # already loaded on the hook's path (``json``)

        if not math.isfinite(value):
            raise ValueError(f"invalid {name} {raw!r} from {env_var(name)}")
    if value <= 0:
        raise ValueError(f"invalid {name} {raw!r} from {env_var(name)}")
    return value


def file_state(stat: os.stat_result) -> list[int]:
    """What tells one version of the config file from another without reading it: any write
    moves its modification or change time, a replacing editor its inode."""
    return [stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]


def file_digest(data: bytes) -> int:
    """A checksum of the file's bytes (CRC-32), stamped beside its state: two versions
    written within one tick of the file system's clock, at the same size and in place (a
    ``cp -p`` keeps the old modification time, an editor may keep the inode), have the same
    state, and only their bytes tell them apart. The hook has read the bytes anyway when it
    compares (``block_settings``), so this costs one pass over a small file and ``zlib``, a
    C module, nothing of ``hashlib``'s start-up; a checksum of a file that may hold a secret
    keeps 32 bits of it, no more."""
    import zlib  # loaded only where the file is read: never on the hook's fast path

    return zlib.crc32(data)


def names_setting(data: bytes, name: str) -> bool:
    """Whether the file's text could set ``name``: ``claimgraph.config`` takes the key with
    ``-`` or ``_`` between its words, and a quoted key may spell it with escapes (``\\u``,
    ``\\U``; ``\\x`` in TOML 1.1), as ``hooks.spool.may_name_db`` says of ``db``. A mention
    in a comment or a table, or an escape anywhere, counts too: a false yes only costs the
    stamp's check."""
    return name.encode() in data.replace(b"-", b"_") or any(
        escape in data for escape in (b"\\u", b"\\U", b"\\x"))


def read_config(path: str) -> tuple[os.stat_result, bytes]:
    """The config file's ``stat`` and bytes, read only when it is a regular file. It is
    opened without blocking: a named pipe (or a device) at the config path would otherwise
    hold the hook, and the agent with it, until the agent's timeout. Raises
    FileNotFoundError when there is none, else OSError for anything that cannot be read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(f"{path} is not a regular file")
    except BaseException:
        os.close(fd)
        raise
    with open(fd, "rb") as handle:  # closes fd
        return status, handle.read()


def block_settings(environ: Mapping[str, str], read_mark: Callable[[str], Any],
                   parsed: Mapping[str, Any] | None = None
                   ) -> tuple[dict[str, Any], bool, str | None]:
    """Each of ``BLOCK_SETTINGS`` as ``claimgraph.config`` would resolve it from ``environ``
    (no flags); whether the config file changed since the curator read it (then a setting
    the file names and only parsing could tell is the value the curator read last, the
    default if it never read one, and the curator is to read the file again); and why the
    file is refused, when it is known to be (every command refuses it: the values are then
    the ones read from it last, and nothing is to be started for them). ``parsed``: what
    the caller's own parse of the file said (``config.judge_block``; the hook parses the
    file when it could name ``db``), taken instead of the curator's stamp. ``read_mark``
    reads a store mark; it is called only for a config file that names a setting the
    environment does not set and that the caller has not parsed, or a refused one."""
    values = {name: from_environment(environ, name) for name in BLOCK_SETTINGS}
    unset = [name for name, value in values.items() if value is None]
    for name in unset:
        values[name] = BLOCK_SETTINGS[name][1]
    if not unset:
        return values, False, None
    path = config_file(environ)
    if parsed is not None and parsed.get("file") == path:
        return from_parse(values, unset, parsed, read_mark)
    try:
        status, data = read_config(path)
        state = file_state(status)
    except FileNotFoundError:
        return values, False, None
    named = [name for name in unset if names_setting(data, name)]
    if not named:
        return values, False, None
    mark = read_stamp(path, read_mark)
    current = mark is not None and is_current(mark, state, data) and holds_here(mark, environ)
    refused = mark["refused"] if current and mark is not None else None
    changed = False
    for name in named:
        value = stamped_value(mark, name)
        changed = changed or not current or (value is None and refused is None)
        if value is not None:
            values[name] = value
    return values, changed, refused


def from_parse(values: dict[str, Any], unset: list[str], parsed: Mapping[str, Any],
               read_mark: Callable[[str], Any]) -> tuple[dict[str, Any], bool, str | None]:
    """``block_settings`` from the caller's parse of the file: its values, or for a refused
    file the ones the curator read from it last (whatever the file's state now)."""
    refused = parsed.get("refused")
    if not isinstance(refused, str):
        settings = parsed.get("settings") or {}
        for name in unset:
            value = valid_value(settings.get(name), name)
            if value is not None:
                values[name] = value
        return values, False, None
    named = [name for name in unset if name in (parsed.get("named") or ())]
    mark = read_stamp(str(parsed["file"]), read_mark) if named else None
    for name in named:
        value = stamped_value(mark, name)
        if value is not None:
            values[name] = value
    return values, False, refused


def refusal(environ: Mapping[str, str], read_mark: Callable[[str], Any],
            parsed: Mapping[str, Any] | None = None) -> str | None:
    """Why the config file is refused, when the caller's parse or the curator's stamp of
    its current state says so (a curator started now would refuse it too), else None."""
    path = config_file(environ)
    if parsed is not None and parsed.get("file") == path:
        refused = parsed.get("refused")
        return refused if isinstance(refused, str) else None
    try:
        status, data = read_config(path)
    except OSError:
        return None
    mark = read_stamp(path, read_mark)
    return mark["refused"] if mark is not None and is_current(
        mark, file_state(status), data) and holds_here(mark, environ) else None


def is_current(mark: Mapping[str, Any], state: list[int], data: bytes) -> bool:
    """Whether a stamp is of the file as it is now: the same state and the same bytes
    (``file_digest``; a stamp without a digest, from before it was kept, is not)."""
    return mark.get("state") == state and mark.get("digest") == file_digest(data)


def holds_here(mark: Mapping[str, Any], environ: Mapping[str, str]) -> bool:
    """Whether a stamp's refusal (if any) holds in ``environ``: a curator whose environment
    lacked the variable of the setting it refused (a shell's, a daemon's) may have stamped a
    file that every command accepts here, where that variable is set and wins over the
    file's value. Such a stamp tells nothing of the file here: it counts as not judged."""
    setting = mark.get("refused_setting")
    return mark.get("refused") is None or not isinstance(setting, str) or not environ.get(
        env_var(setting), "").strip()


def read_stamp(path: str, read_mark: Callable[[str], Any]) -> dict[str, Any] | None:
    """The curator's stamp of the file at ``path`` as {"state", "settings", "refused",
    "refused_setting"} ("refused": why every command refuses the file, else None;
    "refused_setting": the setting whose value it refuses, None for a file that cannot be
    read), or None."""
    mark = read_mark(settings_mark(path))
    if isinstance(mark, Mapping) and mark.get("file") == path:
        settings, refused = mark.get("settings"), mark.get("refused")
        setting = mark.get("refused_setting")
        return {"state": mark.get("state"), "digest": mark.get("digest"),
                "settings": settings if isinstance(settings, Mapping) else {},
                "refused": refused if isinstance(refused, str) else None,
                "refused_setting": setting if isinstance(setting, str) else None}
    return None


def stamped_value(mark: Mapping[str, Any] | None, name: str) -> float | int | None:
    """The value of ``name`` in a stamp, None when it holds none that is valid."""
    return valid_value(mark["settings"].get(name) if mark is not None else None, name)


def valid_value(value: Any, name: str) -> float | int | None:
    """``value`` as the setting ``name``'s type when it is a valid one, else None."""
    kind = BLOCK_SETTINGS[name][0]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        return None
    if kind is int and not isinstance(value, int):
        return None
    return kind(value)


def settings_mark(path: str) -> str:
    """The key of the mark that stamps the config file at ``path``."""
    return SETTINGS_PREFIX + path


def stamp(environ: Mapping[str, str], judge: Callable[[str], dict[str, Any]], now_ns: int,
          last: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The mark to leave for ``block_settings``: the config file's path and state, and what
    ``judge(path)`` (``config.judge_config_file``) makes of it: the value of each of
    ``BLOCK_SETTINGS`` it parses from it (not the environment's or a flag's: the hook checks
    those itself), or why every command refuses the file (``refused``), then with the
    values of ``last``, the file's previous stamp, kept: the ones read from it last. None
    without a file, when it changed while being read, or when it was written less than
    ``SETTLED_NS`` before ``now_ns`` (wall clock)."""
    path = config_file(environ)
    try:
        before, data = read_config(path)
        judged = judge(path)
        after, again = read_config(path)
    except FileNotFoundError:
        return None
    state = file_state(before)
    if state != file_state(after) or data != again or now_ns - before.st_mtime_ns < SETTLED_NS:
        return None
    digest = file_digest(data)
    refused = judged.get("refused")
    if not isinstance(refused, str):
        return {"file": path, "state": state, "digest": digest,
                "settings": {name: judged["settings"][name] for name in BLOCK_SETTINGS}}
    previous = read_stamp(path, lambda key: last)
    kept = {name: stamped_value(previous, name) for name in BLOCK_SETTINGS}
    return {"file": path, "state": state, "digest": digest, "refused": refused,
            "refused_setting": judged.get("setting"),
            "settings": {name: value for name, value in kept.items() if value is not None}}
