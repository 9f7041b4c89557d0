"""Task-runner files whose recipes are a header and a body: Justfile, Makefile, mix aliases,
noxfile.py, tox.ini.

A fragment yields the recipes whose header it shows; body lines without their header (an Edit
that changed one command) cannot say which recipe they belong to and yield nothing.
"""

from __future__ import annotations

import ast
import re
import textwrap
from typing import Callable, Iterator

from claimgraph.capture.extract.recipe_common import Recipe, recipe

_JUST_HEADER = re.compile(r"^@?([A-Za-z_][\w-]*)((?:\s+[^:#]*?)?)\s*:(?![=:])\s*(.*)$")
_JUST_NOT_RECIPES = frozenset({"set", "alias", "export", "import", "mod", "unexport"})


def parse_justfile(text: str) -> list[Recipe]:
    """``name params: deps`` headers and their indented bodies (``@``/``-`` prefixes dropped)."""
    found = []
    for header, body in _blocks(text, _is_just_header, indent=(" ", "\t")):
        match = _JUST_HEADER.match(header)
        name = match.group(1)  # type: ignore[union-attr]
        after_colon = re.sub(r"\"[^\"]*\"|'[^']*'", "", match.group(3).split("#")[0])  # type: ignore[union-attr]
        deps = [f"just {d}" for d in re.findall(r"[A-Za-z_][\w-]*", after_colon)]
        item = recipe(name, f"just {name}", deps + _commands(body), _first(body, header),
                      "justfile")
        found.append(item)
    return [item for item in found if item]


def _is_just_header(line: str) -> bool:
    """A recipe header, not a setting, alias, import or ``name := value`` assignment."""
    match = _JUST_HEADER.match(line)
    return bool(match) and match.group(1) not in _JUST_NOT_RECIPES  # type: ignore[union-attr]


_MAKE_HEADER = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?(?!=)\s*(.*)$")
_MAKE_TARGET = re.compile(r"^[A-Za-z0-9_][\w.-]*$")
_MAKE_DIRECTIVE = re.compile(r"^-?(?:ifn?eq|ifn?def|else|endif|include|sinclude|define|endef|"
                             r"export|unexport|override|vpath|undefine)\b")


def parse_makefile(text: str) -> list[Recipe]:
    """Targets with tab-indented bodies; pattern rules, special targets (.PHONY) and variable
    lines are skipped; a plain-word prerequisite is run first (``make build``)."""
    found = []
    for header, body in _blocks(text, _is_make_header, indent=("\t",)):
        targets, rest = _MAKE_HEADER.match(header).groups()  # type: ignore[union-attr]
        prerequisites, _, inline = rest.partition(";")
        deps = [f"make {d}" for d in prerequisites.split() if _MAKE_TARGET.match(d)
                and "." not in d]
        commands = [inline.strip()] + _commands(body)
        for target in targets.split():
            if _MAKE_TARGET.match(target) and not target.startswith("."):
                found.append(recipe(target, f"make {target}", deps + commands,
                                    _first(body, header), "makefile"))
    return [item for item in found if item]


def _is_make_header(line: str) -> bool:
    match = _MAKE_HEADER.match(line)
    if not match or _MAKE_DIRECTIVE.match(line) or "%" in match.group(1) or "$" in match.group(1):
        return False
    rest = match.group(2)  # a target-specific variable or a ``::=`` assignment is no rule
    return not (rest.startswith(("=", ":=")) or re.match(r"^\s*[\w.]+\s*[:+?!]?=", rest))


def _blocks(text: str, is_header: Callable[[str], bool], indent: tuple[str, ...]
            ) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """(header, body) for each header line and the indented lines under it. A body line is
    (command, quote): backslash-continued lines are joined into one command, and the quote is
    the first physical line, so it is found verbatim in the text."""
    header: str | None = None
    body: list[tuple[str, str]] = []
    for raw, quote in _logical_lines(text):
        if raw.startswith(indent) and raw.strip():
            if header is not None:
                body.append((_command(raw.strip()), quote))
        elif raw.strip():
            if header is not None:
                yield header, body
            header, body = (quote, []) if is_header(raw) else (None, [])
    if header is not None:
        yield header, body


def _logical_lines(text: str) -> Iterator[tuple[str, str]]:
    pending, first = "", ""
    for raw in text.splitlines():
        first = first or raw.strip()
        if raw.endswith("\\"):
            pending += raw[:-1].rstrip() + " " if not pending else raw[:-1].strip() + " "
            continue
        yield (pending + raw.strip() if pending else raw), first
        pending, first = "", ""
    if pending:
        yield pending, first


def _command(line: str) -> str:
    return line.lstrip("@-+ \t")


def _commands(body: list[tuple[str, str]]) -> list[str]:
    return [command for command, quote in body if not quote.startswith("#")]


def _first(body: list[tuple[str, str]], header: str) -> str:
    return next((quote for _, quote in body if not quote.startswith("#")), header)


_MIX_ALIASES = re.compile(r"^(\s*)defp?\s+aliases\b[^\n]*?\bdo\b(?!:)(.*?)^\1end\b", re.M | re.S)
_MIX_ENTRY = re.compile(r"^\s*\[?\s*(?:\"([\w.:-]+)\"|([a-z_][\w.]*)):\s*(.*)$")
_MIX_NOT_ALIASES = frozenset({"deps", "aliases", "app", "version", "elixir", "elixirc_paths",
                              "extra_applications", "mod", "docs", "package", "test_paths",
                              "compilers", "preferred_cli_env", "listeners", "releases"})


def parse_mix_aliases(text: str) -> list[Recipe]:
    """``name: ["task args", "task"]`` entries of ``defp aliases``; without that function in
    sight (a fragment), only entries whose value is a list of task strings count."""
    body = _MIX_ALIASES.search(text)
    lines = (body.group(2) if body else text).splitlines()
    found, index = [], 0
    while index < len(lines):
        entry = _MIX_ENTRY.match(lines[index].split(" #")[0])
        index += 1
        if not entry:
            continue
        name, value, quote = entry.group(1) or entry.group(2), entry.group(3), lines[index - 1]
        while value.count("[") > value.count("]") and index < len(lines):
            value += " " + lines[index].strip()
            index += 1
        tasks = re.findall(r"\"((?:[^\"\\]|\\.)*)\"|(&[\w.]+/\d)", value)
        commands = [string or ref for string, ref in tasks]
        if body is None and (not value.lstrip().startswith("[") or name in _MIX_NOT_ALIASES
                             or not all(re.match(r"^[a-z][\w.]*(\s|$)", c) for c in commands)):
            continue
        found.append(recipe(name, f"mix {name}", commands, quote, "mix"))
    return [item for item in found if item]


def parse_noxfile(text: str) -> list[Recipe]:
    """``@nox.session`` functions (``name=`` honoured) and the ``session.run`` calls in them."""
    tree = _python_tree(text)
    if tree is None:
        return []
    lines, found = text.splitlines(), []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = _session_name(node)
            runs = [call for call in ast.walk(node) if _is_session_run(call)]
            if name and runs:
                commands = [" ".join(_arguments(call)) for call in runs]  # type: ignore[arg-type]
                quote = lines[runs[0].lineno - 1] if runs[0].lineno <= len(lines) else name
                found.append(recipe(name, f"nox -s {name}", commands, quote, "nox"))
    return [item for item in found if item]


def _python_tree(text: str) -> ast.Module | None:
    for candidate in (text, textwrap.dedent(text)):
        try:
            return ast.parse(candidate)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return None


def _session_name(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if ast.unparse(target) in ("nox.session", "session"):
            if isinstance(decorator, ast.Call):
                for keyword in decorator.keywords:
                    if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                        return str(keyword.value.value)
            return node.name
    return None


def _is_session_run(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in ("run", "run_always") and isinstance(node.func.value, ast.Name) \
        and node.func.value.id == "session"


def _arguments(call: ast.Call) -> list[str]:
    words = []
    for argument in call.args:
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            words.append(argument.value)
        elif isinstance(argument, ast.Starred):
            words.append("{" + ast.unparse(argument.value).split(".")[-1] + "}")
    return words


def parse_tox_ini(text: str) -> list[Recipe]:
    """``commands`` of each ``[testenv]`` / ``[testenv:name]`` section (``tox`` / ``tox -e``)."""
    found, section, index = [], None, 0
    lines = text.splitlines()
    while index < len(lines):
        line = lines[index]
        index += 1
        header = re.match(r"^\[(testenv(?::([^\]]+))?)\]\s*$", line.strip())
        if header or re.match(r"^\[", line.strip()):
            section = (header.group(2) or "") if header else None
            continue
        key = re.match(r"^commands\s*[=:]\s*(.*)$", line)
        if section is None or not key:
            continue
        commands = [key.group(1).strip()]
        while index < len(lines) and lines[index][:1] in (" ", "\t"):
            commands.append(lines[index].strip())
            index += 1
        commands = [c for c in commands if c and not c.startswith("#")]
        invocation = f"tox -e {section}" if section else "tox"
        quote = commands[0] if commands else line
        found.append(recipe(section or "testenv", invocation, commands, quote, "tox"))
    return [item for item in found if item]
