"""How a project is worked on: task-runner recipes, scripts, hooks and CI steps, from text alone.

Like ``manifests``, this reads what a session wrote or saw (a Write, an Edit's new text, a Read
result with its line numbers) and never opens a file. ``parse_recipes`` recognises the file by
its path and returns each recipe as what one types, what that runs, the line it was read from
and a guess of its role (test, lint, format, build, run, check, other). Fragments yield the
recipes whose name they show. Pure; never raises; junk gives ``[]``.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Callable

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

__all__ = ["ROLES", "Recipe", "parse_recipes", "recipe_format", "role_of_command"]

MAX_TEXT = 2_000_000

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
        return parse_workflow(posixpath.basename(path.replace("\\", "/")), text)
    try:
        return _PARSERS[kind](text)
    except RecursionError:  # pragma: no cover - a defensive last resort
        return []


def parse_package_scripts(text: str) -> list[Recipe]:
    """``scripts`` entries, run through the project's package manager (``packageManager``,
    else a pnpm/yarn/bun call inside a script, else npm).

    A fragment that does not show ``"scripts": {`` yields a line only when its key is not a
    package.json field and its value is neither a version nor a package source.
    """
    leaves = list(read_json(text))
    manager = _package_manager(leaves)
    found = []
    for leaf in leaves:
        if not isinstance(leaf.value, str):
            continue
        named = leaf.path[1] if len(leaf.path) == 2 and leaf.path[0] == "scripts" else None
        if named is None and len(leaf.path) == 1 and _script_like(leaf.path[0], leaf.value):
            named = leaf.path[0]
        if named:
            found.append(recipe(named, f"{manager} run {named}", [leaf.value], leaf.quote,
                                "package.json"))
    return [item for item in found if item]


def _script_like(key: str, value: str) -> bool:
    return key not in PACKAGE_JSON_FIELDS and not looks_like_version(value) \
        and not value.startswith(tuple(prefix for prefix, _ in PACKAGE_JSON_SOURCES))


_MANAGERS = ("pnpm", "yarn", "bun", "npm")


def _package_manager(leaves: list[Any]) -> str:
    for leaf in leaves:
        if leaf.path == ("packageManager",) and isinstance(leaf.value, str):
            name = leaf.value.split("@")[0].strip()
            if name in _MANAGERS:
                return name
    for leaf in leaves:
        if leaf.path[:1] == ("scripts",) and isinstance(leaf.value, str):
            hint = re.search(r"(?:^|&&|;|\|\|)\s*(pnpm|yarn|bun)\s", leaf.value)
            if hint:
                return hint.group(1)
    return "npm"


def parse_pyproject_tasks(text: str) -> list[Recipe]:
    """[tool.poe.tasks], [tool.hatch.envs.<env>.scripts] and [tool.pdm.scripts]."""
    named: dict[tuple[str, str, str], tuple[dict[str, Any], str]] = {}
    for entry in read_toml(text, lambda p: p[:2] in (("tool", "poe"), ("tool", "hatch"),
                                                     ("tool", "pdm"))):
        located = _task_location(entry)
        if located:
            tool, name, attrs = located
            known = named.setdefault((tool, name, _env(entry)), ({}, entry.quote))
            known[0].update(attrs)
            if attrs.keys() & _COMMAND_KEYS:
                named[(tool, name, _env(entry))] = (known[0], entry.quote)
    found = [_pyproject_task(tool, name, env, attrs, quote)
             for (tool, name, env), (attrs, quote) in named.items()]
    return [item for item in found if item]


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


_PARSERS: dict[str, Callable[[str], list[Recipe]]] = {
    "justfile": parse_justfile, "makefile": parse_makefile,
    "package.json": parse_package_scripts, "mix": parse_mix_aliases, "tox": parse_tox_ini,
    "nox": parse_noxfile, "pre-commit": parse_precommit, "pyproject": parse_pyproject_tasks,
    "taskfile": parse_taskfile,
}
