"""A project's git facts read from the repository's own files, when that gives git's answer.

``claimgraph.project`` names a project by asking git two questions (``rev-parse
--show-toplevel --git-common-dir`` and the remotes' URLs). Two git processes cost a read
command about 10 ms, a fifth of its time, and every SessionStart hook pays them too. For the
ordinary repository the answers are in a few small files: the ``.git`` directory (or the
``gitdir:`` file of a worktree or submodule), its ``commondir``, and the config files git
reads. This module reads them, and answers only when it is sure to say what git would say;
anything it does not fully understand gives None, and the caller asks git as before
(docs/architecture.md, "Projects and scopes").

It gives None for: a path inside a ``.git`` directory; a repository on another file system
than the directory asked about (git stops there); a git directory that is not complete
(``HEAD``, ``objects``, ``refs``), or that belongs to another user (git's safe.directory
check); ``core.worktree``, ``core.bare``, a repository format past 1 or any
``[extensions]``; a config line it cannot parse (continuations, quotes or escapes in a
remote's URL, a section header with more on its line); a remote defined in an included file;
and no ``git`` on PATH (git's own failure then decides). Included files are read only to make
sure they define no remote: whatever their condition, a file without one cannot change the
answer.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from collections.abc import Mapping

#: Config files larger than this are left to git (a config is a few hundred bytes).
MAX_CONFIG_BYTES = 1 << 20
#: Include chains deeper than this are left to git (git itself allows 10).
MAX_INCLUDE_DEPTH = 10


class Unsure(Exception):
    """Something git might read differently: the caller asks git instead."""


def read_project(here: str, environ: Mapping[str, str]) -> tuple[str, str, str | None] | None:
    """``(worktree root, common git dir, remote URL or None)`` for the real, absolute path
    ``here``, as git would report them, or None when only git can tell (module docstring)."""
    try:
        return _read(here, environ)
    except (Unsure, OSError, UnicodeDecodeError, ValueError):
        return None


def _read(here: str, environ: Mapping[str, str]) -> tuple[str, str, str | None]:
    if ".git" in here.split(os.sep):
        raise Unsure
    binary = _git_binary(environ)
    top = _work_tree(here)
    git_dir = _git_dir(top)
    common = _common_dir(git_dir)
    uid = os.geteuid()
    for path in (top, git_dir, common):
        if os.stat(path).st_uid != uid:
            raise Unsure
    _check_repository(git_dir, common)
    remotes: dict[str, str] = {}
    core: dict[str, str] = {}
    for path in _config_files(environ, binary, common):
        local = path.startswith(common + os.sep)
        _read_config(path, remotes, environ, core if local else None)
    _check_core(core, git_dir, common, top)
    name = "origin" if "origin" in remotes else min(remotes, default=None)
    return top, common, remotes[name] if name is not None else None


def _git_binary(environ: Mapping[str, str]) -> str:
    """The ``git`` that ``subprocess`` would start (it looks on this PATH); none: Unsure,
    and git's own failure to start then decides."""
    path = environ.get("PATH")
    for folder in (os.defpath if path is None else path).split(os.pathsep):
        candidate = os.path.join(folder, "git")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise Unsure


def _work_tree(here: str) -> str:
    """The nearest directory holding ``.git``, on ``here``'s own file system."""
    device = os.stat(here).st_dev
    path = here
    while True:
        if os.stat(path).st_dev != device:
            raise Unsure  # git does not cross file systems on its way up
        if os.path.lexists(os.path.join(path, ".git")):
            return path
        if os.path.lexists(os.path.join(path, "HEAD")):
            raise Unsure  # perhaps a bare repository, which git would find first
        parent = os.path.dirname(path)
        if parent == path:
            raise Unsure
        path = parent


def _git_dir(top: str) -> str:
    """``top/.git`` itself, or where its ``gitdir:`` file points (worktrees, submodules)."""
    dot_git = os.path.join(top, ".git")
    info = os.lstat(dot_git)
    if stat.S_ISDIR(info.st_mode):
        return dot_git
    if not stat.S_ISREG(info.st_mode):
        raise Unsure
    text = _small_text(dot_git)
    lines = text.splitlines()
    if len(lines) != 1 or not lines[0].startswith("gitdir: "):
        raise Unsure
    target = lines[0][len("gitdir: "):].strip()
    if not target:
        raise Unsure
    return os.path.realpath(os.path.join(top, target))


def _common_dir(git_dir: str) -> str:
    """Where a linked worktree's shared files are (its ``commondir``), else the git dir."""
    pointer = os.path.join(git_dir, "commondir")
    if not os.path.lexists(pointer):
        return git_dir
    target = _small_text(pointer).strip()
    if not target or "\n" in target:
        raise Unsure
    return os.path.realpath(os.path.join(git_dir, target))


def _check_repository(git_dir: str, common: str) -> None:
    """What git checks before it takes a directory for a repository; short of it, git
    would look further up, so we do not answer."""
    head = os.path.join(git_dir, "HEAD")
    if os.path.islink(head) or not os.path.isfile(head):
        raise Unsure
    text = _small_text(head).strip()
    if not (text.startswith("ref: refs/") or (len(text) in (40, 64) and
                                               all(c in "0123456789abcdef" for c in text))):
        raise Unsure
    if not (os.path.isdir(os.path.join(common, "objects"))
            and os.path.isdir(os.path.join(common, "refs"))):
        raise Unsure


def _config_files(environ: Mapping[str, str], binary: str, common: str) -> list[str]:
    """The files ``git config`` reads, in its order (system, global, local), that exist.
    The system file is ``/etc/gitconfig``, or ``<prefix>/etc/gitconfig`` of a git installed
    under another prefix; git's ``GIT_CONFIG_*`` overrides are scrubbed by our caller."""
    home = environ.get("HOME")
    if not home:
        raise Unsure  # git would ask the password database; leave that to git
    files = ["/etc/gitconfig"]
    prefix = os.path.dirname(os.path.dirname(os.path.realpath(binary)))
    if prefix != "/usr":
        files.append(os.path.join(prefix, "etc", "gitconfig"))
    xdg = environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    files += [os.path.join(xdg, "git", "config"), os.path.join(home, ".gitconfig"),
              os.path.join(common, "config")]
    return [path for path in files if os.path.lexists(path)]


def _small_text(path: str) -> str:
    with open(path, "rb") as handle:
        data = handle.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise Unsure
    return data.decode("utf-8")


def _read_config(path: str, remotes: dict[str, str], environ: Mapping[str, str],
                 core: dict[str, str] | None, depth: int = 0) -> None:
    """Add the file's ``remote.<name>.url`` values to ``remotes`` (the last one wins, as in
    ``git config --get-regexp``) and, for the repository's own config, its ``core`` settings
    that move or change the work tree to ``core``; anything that could change the answer
    unseen is Unsure."""
    if depth > MAX_INCLUDE_DEPTH:
        raise Unsure
    if depth and not os.path.lexists(path):
        return  # git skips an include whose file is missing
    if not os.path.isfile(path):
        raise Unsure
    section: tuple[str, str | None] | None = None
    for raw in _small_text(path).splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.endswith("\\"):
            raise Unsure  # a value continued on the next line
        if line[0] == "[":
            section = _section(line)
            continue
        if section is None:
            raise Unsure
        key, value = _entry(line)
        _apply(section, key, value, path, remotes, environ, core, depth)


def _section(line: str) -> tuple[str, str | None]:
    """``[name]`` or ``[name "subsection"]`` as git parses them, with nothing after the
    bracket but a comment; the deprecated ``[name.subsection]`` is left to git."""
    end = line.find("]")
    if end < 0:
        raise Unsure
    rest = line[end + 1:].strip()
    if rest and rest[0] not in "#;":
        raise Unsure
    inner = line[1:end]
    name, space, sub = inner.partition(" ")
    if not space:
        name, space, sub = inner.partition("\t")
    if not _is_name(name):
        raise Unsure
    if not space:
        return name.lower(), None
    sub = sub.lstrip(" \t")
    if len(sub) < 2 or sub[0] != '"' or sub[-1] != '"' or '"' in sub[1:-1] or "\\" in sub:
        raise Unsure
    return name.lower(), sub[1:-1]


def _entry(line: str) -> tuple[str, str | None]:
    """``key = value`` (the value as written, comments not yet removed) or a bare ``key``."""
    key, eq, value = line.partition("=")
    key = key.strip()
    if not _is_name(key) or not key[0].isalpha():
        raise Unsure
    if eq:
        _check_value(value)
    return key.lower(), value.strip() if eq else None


def _check_value(value: str) -> None:
    """A value git would refuse (an unknown escape, an unclosed quote) makes every git
    command fail; then git's failure, not our reading, must decide."""
    quoted, chars = False, iter(value)
    for char in chars:
        if char == "\\":
            if next(chars, "") not in ('"', "\\", "n", "t", "b"):
                raise Unsure
        elif char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            return
    if quoted:
        raise Unsure


def _plain(value: str | None) -> str:
    """A value without quotes, escapes or a trailing comment, exactly as git reads it."""
    if value is None:
        return ""
    if '"' in value or "\\" in value:
        raise Unsure
    for mark in ("#", ";"):
        if mark in value:
            value = value[:value.index(mark)]
    return value.strip()


def _apply(section: tuple[str, str | None], key: str, value: str | None, path: str,
           remotes: dict[str, str], environ: Mapping[str, str], core: dict[str, str] | None,
           depth: int) -> None:
    name, sub = section
    if name == "remote":
        if depth or sub is None:  # a remote from an included file: its order is git's
            raise Unsure
        if key == "url":
            remotes[sub] = _plain(value)
    elif name in ("include", "includeif"):
        if key == "path":
            included = _include_path(_plain(value), path, environ)
            _read_config(included, {}, environ, core, depth + 1)
    elif name == "extensions":
        raise Unsure
    elif name == "core" and core is not None and key in _CORE_KEYS:
        if depth:
            raise Unsure
        core[key] = _plain(value) if value is not None else "true"


_CORE_KEYS = ("worktree", "bare", "repositoryformatversion")


def _check_core(core: Mapping[str, str], git_dir: str, common: str, top: str) -> None:
    """A format git may refuse, a bare flag, or a work tree set somewhere else than where the
    ``.git`` was found (a submodule's ``core.worktree`` names its own checkout: that one is
    fine)."""
    if core.get("repositoryformatversion", "0") not in ("0", "1"):
        raise Unsure
    if core.get("bare", "false").lower() not in ("false", "no", "off", "0"):
        raise Unsure
    if "worktree" in core:
        moved = os.path.realpath(os.path.join(git_dir, core["worktree"]))
        if git_dir != common or not core["worktree"] or moved != top:
            raise Unsure


def _include_path(value: str, including: str, environ: Mapping[str, str]) -> str:
    if not value:
        raise Unsure
    if value.startswith("~/"):
        return os.path.join(environ.get("HOME") or "", value[2:])
    if value.startswith("~"):
        raise Unsure
    return os.path.join(os.path.dirname(including), value)


def _is_name(text: str) -> bool:
    """Letters, digits and dashes: a section or key name git takes as it is."""
    return bool(text) and all(c.isascii() and (c.isalnum() or c == "-") for c in text)
