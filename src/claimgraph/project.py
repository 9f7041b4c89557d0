"""Which project a session belongs to (docs/architecture.md, "Projects and scopes"): the key that
keeps memories apart.

A project is its repository, not its folder. The id is, in order of preference:
1. the git repository's remote URL, normalized (``origin``, else the first remote by name):
   scheme, user, password and port dropped, host lowercased, ``.git`` and trailing slashes
   stripped, so ``git@GitHub.com:org/repo.git`` and ``https://tok@github.com/org/repo`` are both
   ``github.com/org/repo``. Clones of one repository on two machines share their memory;
2. without a remote, the repository's absolute path; worktrees resolve to the MAIN worktree
   (through ``git rev-parse --git-common-dir``), so every worktree of a repo is one project
   (worktrees of a bare repository share the bare repository's path);
3. outside git (or without git installed, or when git fails or hangs), the cwd's absolute path.
Never the folder's base name: two ``api/`` folders in different places are different projects.

Git runs with a timeout and a scrubbed environment (no inherited ``GIT_DIR``: a hook may run
inside another repository's git hook), and any git failure falls back to paths.
"""

from __future__ import annotations

import os
import re
from collections import namedtuple

from claimgraph.logic.lazy_regex import lazy_regex

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Mapping

GIT_TIMEOUT_S = 5.0
#: ``user@host:path`` (scp-like syntax): no scheme, a colon before the first slash.
_SCP_LIKE = lazy_regex(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>.*)$")
_SCHEME = lazy_regex(r"^[A-Za-z][A-Za-z0-9+.-]*://")
#: A URL ``_host_and_path`` splits without ``urllib.parse``: a scheme, ``://``, then only
#: letters, digits and ``._~-/:@`` (``urlsplit`` gives the same parts for these).
_PLAIN_URL = lazy_regex(r"^[A-Za-z][A-Za-z0-9+.-]*://[A-Za-z0-9._~/:@-]*\Z")


class Project(namedtuple("Project", "id root source")):
    """The id facts are scoped by, and the directory extractors resolve file paths against
    (the CURRENT worktree's root: that is where this session's files are).

    A named tuple, and ``subprocess`` / ``urllib`` imported where used: every scoped command
    resolves its project, and outside git it never needs either."""

    __slots__ = ()
    if TYPE_CHECKING:  # the fields' types, for a type checker
        id: str
        root: str
        source: str  # "remote" | "git-root" | "path"


def normalize_remote(url: str) -> str | None:
    """``host/path`` of a remote URL without credentials, port or ``.git``; None if empty.

    Local remotes (``/srv/git/repo.git``, ``file:///srv/git/repo``) become their absolute path.
    """
    text = url.strip()
    if not text:
        return None
    if text.startswith("file://"):
        return _strip_repo_suffix(os.path.normpath(text[len("file://"):]))
    if _SCHEME.match(text):
        host, path = _host_and_path(text)
    elif (scp := _SCP_LIKE.match(text)) and not text.startswith(("/", ".")):
        host, path = scp["host"].lower(), scp["path"]
    else:
        return _strip_repo_suffix(os.path.normpath(text))
    path = _strip_repo_suffix("/".join(p for p in path.split("/") if p and p != "~"))
    return f"{host}/{path}" if path else host or None


def _host_and_path(url: str) -> tuple[str, str]:
    """``urlsplit(url)``'s lower-cased ``hostname`` and ``path``. A plain URL (``_PLAIN_URL``:
    no query, fragment, brackets, escapes or spaces; the ``https://host/org/repo.git`` a remote
    is nearly always) is split here, as ``urlsplit`` splits it: the network location runs from
    ``//`` to the next ``/``, its host follows the last ``@`` and ends at the first ``:``.
    Anything else goes to ``urlsplit``: ``urllib.parse`` costs ~1.5 ms of every scoped
    command's start (and the SessionStart hook's) in a project with such a remote."""
    if _PLAIN_URL.match(url):
        netloc, slash, path = url.split("://", 1)[1].partition("/")
        host = netloc.rpartition("@")[2].partition(":")[0]
        return host.lower(), slash + path
    from urllib.parse import urlsplit
    parts = urlsplit(url)
    return (parts.hostname or "").lower(), parts.path


def _strip_repo_suffix(path: str) -> str:
    path = path.rstrip("/")
    return path[:-4] if path.endswith(".git") else path


def git_environ(environ: Mapping[str, str]) -> dict[str, str]:
    """The caller's environment minus every ``GIT_*`` override, never prompting, C locale."""
    clean = {k: v for k, v in environ.items() if not k.startswith("GIT_")}
    clean.update(GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    return clean


def _git(cwd: str, args: list[str], environ: Mapping[str, str],
         timeout: float) -> list[str] | None:
    """git's stdout lines, or None when git is missing, fails, or exceeds ``timeout`` (then
    its whole process group is killed: nothing it started outlives the lookup)."""
    import subprocess
    try:
        child = subprocess.Popen(["git", "-C", cwd, *args], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 env=git_environ(environ), start_new_session=True)
    except OSError:
        return None
    with child:
        try:
            out, _ = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(child.pid)
            child.communicate()
            return None
    text = out.decode("utf-8", errors="replace")
    return text.splitlines() if child.returncode == 0 else None


def _kill_group(pid: int) -> None:
    import signal
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def _main_root(cwd: str, toplevel: str, common_dir: str) -> str:
    """What every worktree of one repository shares: the common ``.git`` dir's parent (the
    main worktree), or the common dir itself when it stands alone (worktrees of a bare
    repository, ``--separate-git-dir``). A submodule's ``.git/modules/<name>`` is not a
    project of its own making: the submodule's worktree root stays its id."""
    common = os.path.realpath(os.path.join(cwd, common_dir))
    if os.path.basename(common) == ".git":
        return os.path.dirname(common)
    inside_git_dir = ".git" in common.split(os.sep)
    return common if os.path.isdir(common) and not inside_git_dir else toplevel


def _remote_url(cwd: str, environ: Mapping[str, str], timeout: float) -> str | None:
    """origin's URL, else the first remote's by name (remotes live in the shared config)."""
    lines = _git(cwd, ["config", "--get-regexp", r"^remote\..*\.url$"], environ, timeout) or []
    urls = {}
    for line in lines:
        key, _, value = line.partition(" ")
        urls[key[len("remote."):-len(".url")]] = value
    name = "origin" if "origin" in urls else min(urls, default=None)
    return urls[name] if name is not None else None


def resolve_project(cwd: str | os.PathLike[str], environ: Mapping[str, str] | None = None,
                    timeout: float = GIT_TIMEOUT_S) -> Project:
    """The project of a working directory; see the module docstring for the order."""
    environ = os.environ if environ is None else environ
    here = os.path.realpath(os.path.abspath(os.fspath(cwd)))
    if not _inside_a_git_tree(here):
        return Project(here, here, "path")
    from claimgraph.project_files import read_project
    read = read_project(here, environ)
    if read is not None:  # the repository's own files gave git's answer (project_files)
        worktree, common, url = read
        remote = normalize_remote(url) if url else None
        if remote:
            return Project(remote, worktree, "remote")
        return Project(_main_root(here, worktree, common), worktree, "git-root")
    found = _git(here, ["rev-parse", "--show-toplevel", "--git-common-dir"], environ, timeout)
    if not found or len(found) < 2:
        return Project(here, here, "path")
    worktree = os.path.realpath(found[0])
    url = _remote_url(here, environ, timeout)
    remote = normalize_remote(url) if url else None
    if remote:
        return Project(remote, worktree, "remote")
    return Project(_main_root(here, worktree, found[1]), worktree, "git-root")


def _inside_a_git_tree(path: str) -> bool:
    """Whether ``path`` or a parent holds a ``.git`` (directory or gitfile): git finds a work
    tree no other way once its ``GIT_*`` overrides are scrubbed, so without one the answer
    is the path, and a command run outside any repository starts no git process."""
    while True:
        if os.path.lexists(os.path.join(path, ".git")):
            return True
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent


def project_id(cwd: str | os.PathLike[str], environ: Mapping[str, str] | None = None) -> str:
    return resolve_project(cwd, environ).id


#: Folders that hold checkouts a tool generated for one repository (``<repo>/.claude/worktrees/
#: <name>``): the repository is the component BEFORE the container.
_INNER_CONTAINERS = ((".claude", "worktrees"), (".worktrees",))
#: Folders that hold such checkouts for many repositories (``~/.claude-worktrees/<repo>/<name>``,
#: Conductor's ``conductor/workspaces/<repo>/<name>``, Cursor's ``.cursor/worktrees/<repo>/…``):
#: the repository is the component AFTER the container.
_OUTER_CONTAINERS = ((".claude-worktrees",), ("conductor", "workspaces"), (".cursor", "worktrees"))
#: A component a redactor put in place of a name (``[USER]``, ``<user>``, ``{name}``,
#: ``REDACTED``): it names nothing.
_PLACEHOLDER = lazy_regex(r"^(?:\[[^\]]*\]|<[^>]*>|\{[^}]*\}|\*+|x{3,}|(?:\[?redacted.*))$",
                          re.IGNORECASE)


def project_name(root: str | None) -> str | None:
    """The name a project's facts are told under: its repository's folder name, never a
    checkout a tool generated for it (a worktree's random name) nor a redacted component.
    ``root`` is a POSIX path (a Windows one in its POSIX form); None when nothing names it."""
    if not root:
        return None
    parts = [p for p in root.replace("\\", "/").split("/") if p and p != "."]
    for index in range(len(parts)):
        for container in _INNER_CONTAINERS:
            if tuple(parts[index:index + len(container)]) == container and index > 0 \
                    and len(parts) > index + len(container):
                return _named(parts[index - 1])
        for container in _OUTER_CONTAINERS:
            end = index + len(container)
            if tuple(parts[index:end]) == container and len(parts) > end + 1:
                return _named(parts[end])
    return _named(parts[-1]) if parts else None


def main_checkout(root: str) -> str | None:
    """The repository a checkout inside it belongs to (``/r/app/.claude/worktrees/x`` ->
    ``/r/app``), by the path alone; None when ``root`` is not inside such a container. For a
    directory git cannot be asked about (gone, another machine's): every worktree of one
    repository is then still one project."""
    parts = root.split("/")
    for index in range(1, len(parts)):
        for container in _INNER_CONTAINERS:
            end = index + len(container)
            if tuple(parts[index:end]) == container and len(parts) > end and parts[index - 1]:
                return "/".join(parts[:index])
    return None


def _named(part: str) -> str | None:
    return None if _PLACEHOLDER.match(part) or re.fullmatch(r"[A-Za-z]:", part) else part
