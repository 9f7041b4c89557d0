"""How a project is worked on: task-runner recipes, scripts, hooks and CI steps, from text alone.

Like ``manifests``, this reads what a session wrote or saw (a Write, an Edit's new text, a Read
result with its line numbers) and never opens a file. ``parse_recipes`` recognises the file by
its path and returns each recipe as what one types, what that runs, the line it was read from
and a guess of its role (test, lint, format, build, run, check, other). Fragments yield the
recipes whose name they show. Pure; never raises; junk gives ``[]``; a text with more than
``MAX_RECIPES`` recipes yields the first ones.
"""

from __future__ import annotations

import posixpath
from claimgraph.logic.lazy_regex import lazy_regex
from itertools import islice
from typing import Any, Callable, Iterator

from claimgraph.capture.extract.lenient_json import read_json
from claimgraph.capture.extract.lenient_toml import TomlEntry, read_toml
from claimgraph.capture.extract.manifest_common import looks_like_version, strip_line_numbers
from claimgraph.capture.extract.manifest_structured import (
    PACKAGE_JSON_FIELDS, PACKAGE_JSON_SOURCES)
from claimgraph.capture.extract.recipe_common import ROLES, Recipe, recipe, role_of_command
from claimgraph.capture.extract.recipe_runners import (
    parse_justfile, parse_makefile, parse_mix_aliases, parse_noxfile, parse_tox_ini)
from claimgraph.capture.extract.recipe_yaml import (
    parse_precommit, parse_taskfile, parse_workflow)

__all__ = ["MAX_RECIPES", "ROLES", "Recipe", "SOME_MANAGER", "declared_manager",
           "parse_recipes", "recipe_format", "role_of_command"]

MAX_TEXT = 2_000_000
#: Recipes read from one text; the parsers are lazy, so reading stops there. A file with more
#: is generated, not kept by hand, and the bound keeps one call's cost bounded.
MAX_RECIPES = 300

_BY_NAME = {"justfile": "justfile", ".justfile": "justfile", "makefile": "makefile",
            "gnumakefile": "makefile", "package.json": "package.json", "mix.exs": "mix",
            "tox.ini": "tox", "noxfile.py": "nox", ".pre-commit-config.yaml": "pre-commit",
            ".pre-commit-config.yml": "pre-commit", "pyproject.toml": "pyproject",
            "taskfile.yml": "taskfile", "taskfile.yaml": "taskfile",
            "taskfile.dist.yml": "taskfile", "taskfile.dist.yaml": "taskfile"}


def recipe_format(path: str) -> str | None:
    """Which recipe format a path names (justfile, makefile, package.json, mix, tox, nox,
    pre-commit, github-actions, pyproject, taskfile), else None."""
    normalized = (path or "").replace("\\", "/")
    name = posixpath.basename(normalized).lower()
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name.endswith(".just"):
        return "justfile"
    if name.endswith(".mk"):
        return "makefile"
    if "/.github/workflows/" in "/" + normalized and name.endswith((".yml", ".yaml")):
        return "github-actions"
    return None


def parse_recipes(path: str, text: str) -> list[Recipe]:
    """The recipes ``text`` defines, if ``path`` names a recipe file; else ``[]``."""
    kind = recipe_format(path)
    if kind is None or not isinstance(text, str) or not text or len(text) > MAX_TEXT \
            or "\x00" in text:
        return []
    text = strip_line_numbers(text)
    if kind == "github-actions":
        found = parse_workflow(posixpath.basename(path.replace("\\", "/")), text)
    else:
        found = _PARSERS[kind](text)
    return list(islice(filter(None, found), MAX_RECIPES))


#: Stands for the package manager in a script's invocation until the session says which
#: one the project uses (``package_manager``, applied by ``workflow``): npm is only a guess.
SOME_MANAGER = "<manager>"


def parse_package_scripts(text: str) -> Iterator[Recipe | None]:
    """``scripts`` entries, run through the manager the ``packageManager`` field names, else
    ``SOME_MANAGER`` (the session's record decides: ``package_manager``).

    A fragment that does not show ``"scripts": {`` yields a line only when its key is not a
    package.json field and its value is neither a version nor a package source, marked not
    ``placed``: it may sit in another object. A text that starts at the document's own ``{``
    shows its top-level fields as fields, never scripts (an extension manifest's
    ``displayName`` or ``icon`` is no command).
    """
    manager = declared_manager(text) or SOME_MANAGER
    rooted = text.lstrip().startswith("{")
    for leaf in read_json(text):
        if not isinstance(leaf.value, str):
            continue
        named = leaf.path[1] if len(leaf.path) == 2 and leaf.path[0] == "scripts" else None
        placed = named is not None
        if named is None and not rooted and len(leaf.path) == 1 \
                and _script_like(leaf.path[0], leaf.value):
            named = leaf.path[0]
        if named:
            yield recipe(named, f"{manager} run {named}", [leaf.value], leaf.quote,
                         "package.json", placed=placed)


def _script_like(key: str, value: str) -> bool:
    return key not in PACKAGE_JSON_FIELDS and not looks_like_version(value) \
        and not value.startswith(tuple(prefix for prefix, _ in PACKAGE_JSON_SOURCES))


def declared_manager(text: str) -> str | None:
    """The manager a package.json's ``packageManager`` field names, if the text shows it."""
    found = _DECLARED_MANAGER.search(text or "")
    return found.group(1) if found else None


_DECLARED_MANAGER = lazy_regex(r'"packageManager"\s*:\s*"(pnpm|yarn|bun|npm)@')


def parse_pyproject_tasks(text: str) -> Iterator[Recipe | None]:
    """[tool.poe.tasks], [tool.hatch.envs.<env>.scripts] and [tool.pdm.scripts]."""
    current: tuple[str, str, str] | None = None
    attrs: dict[str, Any] = {}
    quote = ""
    for entry in read_toml(text, _task_tables, _task_tables):
        located = _task_location(entry)
        if located is None:
            continue
        tool, name, found = located
        if (tool, name, _env(entry)) != current:
            if current:
                yield _pyproject_task(*current, attrs, quote)
            current, attrs, quote = (tool, name, _env(entry)), {}, entry.quote
        attrs.update(found)
        if found.keys() & _COMMAND_KEYS:
            quote = entry.quote
    if current:
        yield _pyproject_task(*current, attrs, quote)


def _task_tables(path: tuple[str, ...]) -> bool:
    return path[:2] in _TASK_TABLES or path in ((), ("tool",))


_TASK_TABLES = frozenset({("tool", "poe"), ("tool", "hatch"), ("tool", "pdm")})
_COMMAND_KEYS = frozenset({"cmd", "shell", "script", "ref", "expr", "call", "sequence",
                           "composite"})


def _env(entry: TomlEntry) -> str:
    path = entry.path
    return path[3] if path[:3] == ("tool", "hatch", "envs") and len(path) > 3 else ""


def _task_location(entry: TomlEntry) -> tuple[str, str, dict[str, Any]] | None:
    """(tool, task name, attributes) for a statement that defines (part of) a task."""
    path = entry.path
    if path[:3] == ("tool", "poe", "tasks") and len(path) >= 4:
        tool, at = "poe", 3
    elif path[:3] == ("tool", "pdm", "scripts") and len(path) >= 4 and path[3][:1] != "_":
        tool, at = "pdm", 3
    elif path[:3] == ("tool", "hatch", "envs") and path[4:5] == ("scripts",) and len(path) >= 6:
        tool, at = "hatch", 5
    else:
        return None
    value = entry.value
    for part in reversed(path[at + 1:]):
        value = {part: value}
    if isinstance(value, str):
        value = {"cmd": value}
    elif isinstance(value, list):
        value = {"commands" if tool == "hatch" else "sequence": value}
    return (tool, path[at], value) if isinstance(value, dict) else None


def _pyproject_task(tool: str, name: str, env: str, attrs: dict[str, Any],
                    quote: str) -> Recipe | None:
    commands = []
    for key in ("cmd", "shell", "script", "call", "expr", "ref"):
        if isinstance(attrs.get(key), str):
            commands.append(attrs[key])
    for item in attrs.get("sequence") or attrs.get("composite") or attrs.get("commands") or []:
        if isinstance(item, str):
            prefix = {"poe": "poe ", "pdm": "pdm run "}.get(tool, "")
            commands.append(item if not prefix or " " in item else prefix + item)
        elif isinstance(item, dict):
            commands.extend(str(item[k]) for k in ("cmd", "shell", "script", "ref") if k in item)
    invocation = {"poe": f"poe {name}", "pdm": f"pdm run {name}",
                  "hatch": f"hatch run {name}" if env in ("", "default")
                  else f"hatch run {env}:{name}"}[tool]
    return recipe(name, invocation, commands, quote, tool)


_PARSERS: dict[str, Callable[[str], Iterator[Recipe | None]]] = {
    "justfile": parse_justfile, "makefile": parse_makefile,
    "package.json": parse_package_scripts, "mix": parse_mix_aliases, "tox": parse_tox_ini,
    "nox": parse_noxfile, "pre-commit": parse_precommit, "pyproject": parse_pyproject_tasks,
    "taskfile": parse_taskfile,
}
