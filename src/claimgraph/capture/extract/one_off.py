"""A failure fixed by changing the project's own code is a bug fixed, not a lesson.

A failure-mode lesson is worth a line of the next session's context when the failure will
bite again: how the project's tools, environment or build behave (a flag a tool does not
take, a command that must run first, a setting, a path that differs). A failure fixed by
editing only the program's source (`"`pytest` failed: KeyError: 'SECRET_KEY'; fixed by
editing src/shop/settings.py"`, a crash the person reported, fixed in the view that crashed)
is history: the code no longer has the bug, and "fixed by editing F" tells the next agent
nothing it can do. Such a lesson is kept only when the session also said why it happened
(``diagnosis`` attached a cause to it): the cause is what recurs ("the runner cannot load
libEGL, so UI modules import Qt lazily").

Source here is code of a programming language (``code.language_of``) that is neither a
manifest, a task-runner or CI file, a build or tool configuration (``*.config.js``,
``setup.py``, ``build.rs``), nor a shell script (how the project is built and run): a fix
there is about the tools, and stays a lesson. Rules that store "fixed by" record the files
an edit-only fix changed under ``FIX_EDITS``; this module reads nothing else.
"""

from __future__ import annotations

import posixpath
from typing import Any, Iterable

from claimgraph.capture.extract.code import language_of
from claimgraph.capture.extract.manifests import manifest_format, parse_manifest
from claimgraph.capture.extract.reads import surviving_looks
from claimgraph.capture.extract.recipes import recipe_format
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.shell import invocations, unwrap
from claimgraph.capture.extract.tooling import PACKAGE_ADDS, changes_manifest, packages_added

#: The candidate key under which a lesson fixed by edits alone lists the files it edited.
FIX_EDITS = "fix_edits"
#: Languages whose files say how the project is built and run, not what it does.
_TOOLING_LANGUAGES = frozenset({"Shell", "SQL"})
#: The program's own templates and styles, which ``code.language_of`` does not list.
_MARKUP = frozenset({".html", ".htm", ".jinja", ".jinja2", ".j2", ".css", ".scss", ".sass",
                     ".less", ".erb", ".hbs", ".ejs", ".twig", ".liquid", ".mustache"})
#: Source files by name that configure a build or a tool, not the program.
_BUILD_FILES = frozenset({"setup.py", "noxfile.py", "fabfile.py", "build.rs", "package.swift",
                          "gulpfile.js", "gruntfile.js", "rakefile", "dangerfile.js",
                          "build.gradle.kts", "settings.gradle.kts", "build.sbt"})


def program_source(path: str) -> bool:
    """Is ``path`` the program's own code (not a manifest, recipe, CI or tool config)?"""
    normalized = path.replace("\\", "/")
    name = posixpath.basename(normalized).lower()
    parts = normalized.lower().split("/")[:-1]
    code = language_of(name) not in (None, *_TOOLING_LANGUAGES) \
        or posixpath.splitext(name)[1] in _MARKUP
    return code \
        and manifest_format(normalized) is None and recipe_format(normalized) is None \
        and name not in _BUILD_FILES and ".config." not in name \
        and not name.endswith(("config.js", "config.ts", "config.mjs", "config.cjs")) \
        and not any(part.startswith(".") and part not in (".", "..") for part in parts)


def bug_fixed(lesson: dict[str, Any], explained: bool) -> bool:
    """A lesson whose fix only edited program source, with no cause the session stated
    (``explained``): the bug is gone with the edit, nothing is left to remember."""
    files = lesson.get(FIX_EDITS) or ()
    return bool(files) and not explained and all(program_source(str(f)) for f in files)


def without_bug_fixes(candidates: list[dict[str, Any]],
                      explained: set[int]) -> list[dict[str, Any]]:
    """``candidates`` less the lessons that are bug fixes (``bug_fixed``); ``explained`` holds
    the ids of the candidates a cause was attached to. The files list is an internal note of
    the rules: it is taken off every candidate kept."""
    kept = []
    for found in candidates:
        if bug_fixed(found, id(found) in explained):
            continue
        found.pop(FIX_EDITS, None)
        kept.append(found)
    return kept


#: Programs that drive a terminal session (panes, windows, keys typed into another agent's
#: prompt): the session's own harness, not how the project is built or run.
TERMINAL_DRIVERS = frozenset({"tmux", "screen", "zellij"})


def drives_terminal(programs: Iterable[str]) -> bool:
    """Does any of ``programs`` (the failed command's, the fix's) drive a terminal session? A
    failure "fixed" by typing keys into a pane is a chore of the session's own tooling."""
    return any(posixpath.basename(program) in TERMINAL_DRIVERS for program in programs)


def hand_installs(view: SessionView, fix: str) -> tuple[list[str], bool] | None:
    """For a fix that only installs named packages into an environment (``pip install
    click``; chained installs too): (the names, whether that is no lesson). None for any other
    fix (``pip install -r …``, ``pip install -e .``, ``npm install``, a formatter): those
    install what the project declares, or are no install at all.

    A package a manifest of the project declares, installed by hand after an import failed,
    says the environment was not set up, which the manifest already tells: no lesson. So is
    one installed while the session saw no manifest of its ecosystem at all: whether the
    project declares it is unknown. Only a package the manifests the session saw leave out
    must be installed by hand, and that is the lesson."""
    names: list[str] = []
    ecosystems: set[str] = set()
    for invocation in invocations(fix, None):
        words = unwrap(invocation.argv)
        spec = next((PACKAGE_ADDS[tuple(words[:size])] for size in (3, 2)
                     if tuple(words[:size]) in PACKAGE_ADDS), None)
        added = packages_added(invocation.argv)
        if spec is None or not added or changes_manifest(invocation.argv):
            return None
        names.extend(added)
        ecosystems.add(_ECOSYSTEMS.get(spec[0], spec[0]))
    if not names:
        return None
    declared = declared_packages(view)
    unseen = any(not declared.get(ecosystem) for ecosystem in ecosystems)
    listed = all(any(_normal(name) in found for found in declared.values()) for name in names)
    return names, unseen or listed


#: ``tooling.PACKAGE_ADDS``'s ecosystem names as manifests name theirs.
_ECOSYSTEMS = {"js": "node"}


def declared_packages(view: SessionView) -> dict[str, frozenset[str]]:
    """Per ecosystem (python, node, ...), every package a manifest of the project the session
    saw (read, written or edited, and not deleted since) declares, names normalized (``_``
    and ``.`` as ``-``, lower case); an ecosystem whose manifest declares nothing maps to an
    empty set, one with no manifest seen is absent."""
    return view.remembered("declared_packages", _declared)


def _declared(view: SessionView) -> dict[str, frozenset[str]]:
    names: dict[str, set[str]] = {}
    for looks in surviving_looks(view).values():
        if looks[-1].cited is None or manifest_format(looks[-1].path) is None:
            continue
        for look in looks:
            manifest = parse_manifest(look.path, look.text)
            if manifest:
                names.setdefault(manifest.ecosystem, set()).update(
                    _normal(dependency.name) for dependency in manifest.dependencies)
    return {ecosystem: frozenset(found) for ecosystem, found in names.items()}


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")
