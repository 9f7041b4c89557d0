"""Which package manager a project runs its package.json scripts with, as the session saw it.

A script is typed through a manager (``pnpm run test``, ``bun run lint``); ``npm run test`` in
a pnpm workspace is the wrong command, and npm is only a guess when nothing says which. So a
recipe read from a package.json names a manager only when the record does, strongest first:

1. the file's own ``packageManager`` field (``"pnpm@9.1.0"``), in any look at it;
2. the lock file the session saw in the project: ``pnpm-lock.yaml``, ``yarn.lock``,
   ``bun.lock``/``bun.lockb``, ``package-lock.json`` -- a path a tool read or wrote, a
   listing (``ls``, ``find``, ``git ls-files``) run in the project, or a file a search of
   the project found;
3. what the person said they use (``we use pnpm``, a command they typed: ``yarn test``;
   not ``npm i -g x``, a tool for the machine, nor "instead of npm", nor a manager named for
   a registry act or a one-off tool -- "proceed with npm publish", "i ran npm login, can i
   do the same with bun?", ``npm view x``, ``pnpm dlx x``: publishing, logging in and
   running a package once say nothing of which manager installs and runs the project);
4. the manager the file's own scripts call (``"build": "pnpm -r build"``);
5. the manager the session itself ran in the project, not failing (``pnpm install``,
   ``bun run test``).

A level that names two managers (a ``yarn.lock`` beside a ``package-lock.json``) decides
nothing, and the next one is asked. When none names one, the fact says the script's name
without a manager (``workflow``).
"""

from __future__ import annotations

import posixpath
import re
from typing import Iterable

from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.actions import Action, actions
from claimgraph.capture.extract.recipes import declared_manager
from claimgraph.capture.extract.session import FAILED, SessionView
from claimgraph.capture.extract.shell import call_cwd, invocations
from claimgraph.capture.extract.statements import user_texts
from claimgraph.capture.extract.tools import EDIT, OTHER, READ, SHELL, WRITE

MANAGERS = ("npm", "pnpm", "yarn", "bun")
LOCK_FILES = {"pnpm-lock.yaml": "pnpm", "yarn.lock": "yarn", "bun.lock": "bun",
              "bun.lockb": "bun", "package-lock.json": "npm", "npm-shrinkwrap.json": "npm"}
_LOCK_NAME = lazy_regex(r"(?<![\w.-])(pnpm-lock\.yaml|yarn\.lock|bun\.lockb?|package-lock\.json"
                        r"|npm-shrinkwrap\.json)(?![\w.-])")
#: Programs and git subcommands that list a folder's files: their output names what is there.
_LISTINGS = frozenset({"ls", "find", "tree", "fd", "fdfind", "exa", "eza", "dir"})
_GIT_LISTINGS = frozenset({"ls-files", "status", "ls-tree"})
_CALLED = lazy_regex(r'(?:":\s*"|&&|;|\|\|)\s*(pnpm|yarn|bun)\s')
#: A manager's subcommands that use it on the project (not ``npm view``, ``npm -g i``, nor
#: ``npm exec``: a package run once, as ``npx`` runs it, whatever installs the project).
_USES = frozenset({"install", "i", "ci", "add", "remove", "rm", "uninstall", "run",
                   "run-script", "test", "t", "start"})
#: A manager's subcommands that act on the registry or the machine, or run a package once:
#: the person naming one ("proceed with npm publish", "use pnpm dlx") is no project's manager.
_NOT_PROJECT = frozenset({"publish", "unpublish", "login", "logout", "adduser", "whoami",
                          "view", "info", "show", "search", "deprecate", "undeprecate",
                          "dist-tag", "owner", "token", "access", "pack", "version", "exec",
                          "dlx", "x", "create", "init", "link", "global", "config", "cache"})
#: Words of a sentence about the registry (publishing, an account): a manager it names is
#: the registry's client there ("i ran npm login, can i do something similar with bun?").
_REGISTRY_ACT = lazy_regex(r"\b(?:publish\w*|unpublish\w*|log(?:ged|ging)?[ -]?in|logout"
                           r"|whoami|registry|deprecat\w*|otp|2fa)\b", re.IGNORECASE)
_SENTENCE_END = lazy_regex(r"[.!?](?=\s|$)|\n")
_GLOBAL = frozenset({"-g", "--global", "--location=global"})
#: The person naming a manager they use: "use pnpm", "with bun", or a command they typed.
_SAID = lazy_regex(r"(?:\b(?:use|using|uses|with|via|prefer)\s+(npm|pnpm|yarn|bun)\b"
                   r"|(?<![\w/.-])(npm|pnpm|yarn|bun)\s+(?:run|install|i|add|test|ci)\b)",
                   re.IGNORECASE)
_NEGATED = lazy_regex(r"(?:\bnot|n't|\bnever|\binstead of|\bwithout|\bnor)\W+(?:\w+\W+)?$",
                      re.IGNORECASE)


def manager_of(view: SessionView, texts: Iterable[str]) -> str | None:
    """The manager of the package.json whose looks are ``texts`` (module docstring), or None
    when the record does not say."""
    texts = list(texts)
    for text in reversed(texts):
        declared = declared_manager(text)
        if declared:
            return declared
    called = {found.group(1) for text in texts for found in _CALLED.finditer(text)}
    for level in (_locks(view), _said(view), called, _ran(view)):
        if len(level) == 1:
            return next(iter(level))
    return None


def _locks(view: SessionView) -> set[str]:
    found: set[str] = view.remembered("package_manager.locks", _seen_locks)
    return found


def _seen_locks(view: SessionView) -> set[str]:
    """Managers whose lock file the session saw in the project."""
    found: set[str] = set()
    for action in actions(view):
        if action.kind in (READ, WRITE, EDIT) and action.path \
                and posixpath.basename(action.path) in LOCK_FILES \
                and view.own(action.path) is not None:
            found.add(LOCK_FILES[posixpath.basename(action.path)])
        elif action.kind == SHELL and action.command and action.result is not None \
                and action.outcome != FAILED and _lists_project(view, action.command,
                                                                call_cwd(action.call)):
            found.update(LOCK_FILES[name] for name in _LOCK_NAME.findall(action.result.text or ""))
        elif action.kind == OTHER and action.result is not None and _searched_project(view, action):
            found.update(_listed_locks(view, action.result.text or ""))
    return found


def _searched_project(view: SessionView, action: Action) -> bool:
    """A search tool (a glob, a grep over files) looked in the project: the folder it was
    given is the project's, or it was given none and the agent was in the project."""
    folder = action.input.get("path") or action.input.get("dir_path")
    if action.input.get("url") or action.input.get("query"):
        return False  # a web search or fetch: someone else's files
    place = folder if isinstance(folder, str) and folder else call_cwd(action.call)
    resolved = view.resolve(place, call_cwd(action.call)) if place else None
    return resolved is not None and view.own(resolved + "/x") is not None


def _listed_locks(view: SessionView, text: str) -> set[str]:
    """Managers whose lock file a search's result lists as a line of its own (a file found:
    ``pnpm-lock.yaml``, ``/p/web/yarn.lock``); an absolute path counts inside the project."""
    found: set[str] = set()
    for match in _LISTED.finditer(text):
        path = match.group(0).strip()
        if path.startswith("/") and view.own(path) is None:
            continue
        found.add(LOCK_FILES[match.group(1)])
    return found


_LISTED = lazy_regex(r"^[ \t]*(?:[^\s:]*/)?(pnpm-lock\.yaml|yarn\.lock|bun\.lockb?"
                     r"|package-lock\.json|npm-shrinkwrap\.json)[ \t]*$", re.MULTILINE)


def _lists_project(view: SessionView, command: str, cwd: str | None) -> bool:
    """The line only lists files (``ls``, ``find``, ``git ls-files``), in the project."""
    runs = [run for run in invocations(command, cwd) if run.argv and run.argv[0] != "cd"]
    if not runs or not all(_listing(run.argv) for run in runs):
        return False
    return all(run.cwd is None or view.own(run.cwd) is not None for run in runs)


def _listing(argv: tuple[str, ...]) -> bool:
    program = posixpath.basename(argv[0])
    if program == "git":
        verb = next((word for word in argv[1:] if not word.startswith("-")), "")
        return verb in _GIT_LISTINGS
    return program in _LISTINGS


def _said(view: SessionView) -> set[str]:
    found: set[str] = view.remembered("package_manager.said", _person_said)
    return found


def _person_said(view: SessionView) -> set[str]:
    """Managers the person named as theirs, in their own words (not after "not", "instead
    of": "use pnpm, not npm" names pnpm; not for a registry act or a one-off tool)."""
    found: set[str] = set()
    for _, text in user_texts(view):
        for match in _SAID.finditer(text):
            line_end = text.find("\n", match.end())
            rest = text[match.end():line_end if line_end >= 0 else len(text)].split()
            if _NEGATED.search(text[max(0, match.start() - 24):match.start()]) \
                    or _GLOBAL & set(rest):
                continue  # "not npm", or a tool installed for the machine: ``npm i -g x``
            if match.group(1) and _not_the_projects(text, match.start(), match.end(), rest):
                continue  # "proceed with npm publish": the registry's client, not the project's
            found.add((match.group(1) or match.group(2)).lower())
    return found


def _not_the_projects(text: str, start: int, end: int, rest: list[str]) -> bool:
    """A manager named ("with npm") for a registry act or a one-off tool: the word after it
    is such a subcommand (``npm publish``, ``pnpm dlx``), or its sentence is about the
    registry (publishing, logging in)."""
    following = rest[0].strip("`'\".,;:!?()").lower() if rest else ""
    if following in _NOT_PROJECT:
        return True
    ends = [found.end() for found in _SENTENCE_END.finditer(text, 0, start)]
    after = _SENTENCE_END.search(text, end)
    sentence = text[ends[-1] if ends else 0:after.start() if after else len(text)]
    return bool(_REGISTRY_ACT.search(sentence))


def _ran(view: SessionView) -> set[str]:
    found: set[str] = view.remembered("package_manager.ran", _session_ran)
    return found


def _session_ran(view: SessionView) -> set[str]:
    """Managers the session ran on the project, in it, in a call that did not fail."""
    found: set[str] = set()
    for action in actions(view):
        if action.kind != SHELL or not action.command or action.outcome == FAILED:
            continue
        for run in invocations(action.command, call_cwd(action.call)):
            words = run.argv
            if len(words) < 2 or words[0] not in MANAGERS or _GLOBAL & set(words) \
                    or words[1] not in _USES:
                continue
            if run.cwd is None or view.own(run.cwd) is not None:
                found.add(words[0])
    return found
