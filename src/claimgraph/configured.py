"""The configured ``half_life_days`` as a path that may not parse TOML can know it.

The SessionStart hook ranks the facts of its block by decayed confidence, so it must rank with
the half-life the user configured (``claimgraph context`` and the curator read it through
``claimgraph.config``). But the hook runs before every session of the agent, and reading the
config file there means ``tomllib``, which loads ``re``'s compiler, ``string``, ``typing`` and
``datetime`` (about 35 ms; docs/internals.md, "Start-up"). So the hook resolves the setting
the way ``claimgraph.config`` does, as far as it can without parsing:

- ``$CLAIMGRAPH_HALF_LIFE_DAYS``, when set, wins over the file there as here;
- no config file, or one that never names the setting: the default;
- a file that names it: the curator, which parses the file on each pass, leaves in the store
  what that file says and the file's ``os.stat`` when it read it (``stamp``; the mark
  ``half_life_mark(path)``). While the file is unchanged, that value is the file's; once the file
  has changed, the hook cannot know the value (``None``): it ranks by the value the curator
  read last (``last_read_half_life``; the default if it never read one) and has the curator
  read the file again, so the next start ranks by the new one (docs/hooks.md).

Standard library only, and only what the hook loads anyway (``os``, ``math``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Callable

#: ``claimgraph.config``'s setting of that name: its default and its variable.
HALF_LIFE_SETTING = "half_life_days"
DEFAULT_HALF_LIFE_DAYS = 90.0
HALF_LIFE_ENV = "CLAIMGRAPH_HALF_LIFE_DAYS"
#: The store marks the curator leaves, one per config file it read (a daemon's environment may
#: name another file than the agent's): ``context:half-life:<path>`` = {"file", "state",
#: "half_life"} (docs/store.md).
HALF_LIFE_PREFIX = "context:half-life:"
#: A file's times come from a coarse clock (a few ms; 1 or 2 s on some file systems): a file
#: written this recently could be written again within the same tick, at the same size, and
#: its state would not change. The curator stamps only a file older than this.
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


def from_environment(environ: Mapping[str, str]) -> float | None:
    """``$CLAIMGRAPH_HALF_LIFE_DAYS`` as ``claimgraph.config`` reads it, None when unset;
    ValueError when it is no finite number above 0 (every command refuses it too)."""
    raw = environ.get(HALF_LIFE_ENV, "").strip()
    if not raw:
        return None
    import math  # already loaded on the hook's path (``json``)

    value = float(raw)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"invalid {HALF_LIFE_SETTING} {raw!r} from {HALF_LIFE_ENV}")
    return value


def file_state(stat: os.stat_result) -> list[int]:
    """What tells one version of the config file from another without reading it: any write
    moves its modification or change time, a replacing editor its inode."""
    return [stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]


def names_half_life(data: bytes) -> bool:
    """Whether the file's text could set the half-life: ``claimgraph.config`` takes the key
    with ``-`` or ``_`` between its words. A mention in a comment or a table counts too: a
    false yes only costs the stamp's check."""
    return HALF_LIFE_SETTING.encode() in data.replace(b"-", b"_")


def configured_half_life(environ: Mapping[str, str],
                         read_mark: Callable[[str], Any]) -> float | None:
    """The half-life ``claimgraph.config`` would resolve from ``environ`` (no flags), or None
    when only parsing the config file could tell (module docstring). ``read_mark`` reads a
    store mark; it is called only for a config file that names the setting."""
    from_env = from_environment(environ)
    if from_env is not None:
        return from_env
    path = config_file(environ)
    try:
        with open(path, "rb") as handle:
            state, data = file_state(os.fstat(handle.fileno())), handle.read()
    except FileNotFoundError:
        return DEFAULT_HALF_LIFE_DAYS
    if not names_half_life(data):
        return DEFAULT_HALF_LIFE_DAYS
    mark = read_mark(half_life_mark(path))
    if isinstance(mark, Mapping) and mark.get("file") == path and mark.get("state") == state:
        value = mark.get("half_life")
        return float(value) if isinstance(value, (int, float)) and value > 0 else None
    return None


def last_read_half_life(environ: Mapping[str, str], read_mark: Callable[[str], Any]) -> float:
    """The half-life the curator last read from the config file, whatever the file holds now;
    the default when it never read one. What the hook ranks by while the file it cannot parse
    has changed: the user's previous setting, until the curator reads the new one."""
    path = config_file(environ)
    mark = read_mark(half_life_mark(path))
    value = mark.get("half_life") if isinstance(mark, Mapping) and mark.get("file") == path \
        else None
    return float(value) if isinstance(value, (int, float)) and value > 0 \
        else DEFAULT_HALF_LIFE_DAYS


def half_life_mark(path: str) -> str:
    """The key of the mark that stamps the config file at ``path``."""
    return HALF_LIFE_PREFIX + path


def stamp(environ: Mapping[str, str], read_file: Callable[[str], float],
          now_ns: int) -> dict[str, Any] | None:
    """The mark to leave for ``configured_half_life``: the config file's path and state, and
    the half-life ``read_file(path)`` parses from it (not the environment's or a flag's: the
    hook checks those itself). None without a file, when it changed while being read, or
    when it was written less than ``SETTLED_NS`` before ``now_ns`` (wall clock)."""
    path = config_file(environ)
    try:
        before = os.stat(path)
        value = read_file(path)
        after = os.stat(path)
    except FileNotFoundError:
        return None
    state = file_state(before)
    if state != file_state(after) or now_ns - before.st_mtime_ns < SETTLED_NS:
        return None
    return {"file": path, "state": state, "half_life": value}
