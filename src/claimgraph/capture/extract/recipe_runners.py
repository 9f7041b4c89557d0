"""Task-runner files whose recipes are a header and a body: Justfile, Makefile, mix aliases,
noxfile.py, tox.ini.

A fragment yields the recipes whose header it shows; body lines without their header (an Edit
that changed one command) cannot say which recipe they belong to and yield nothing.
"""

from __future__ import annotations

import re
from typing import Callable, Iterator
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.recipe_common import Recipe, recipe

_JUST_HEADER = lazy_regex(r"^@?([A-Za-z_][\w-]*)((?:\s+[^:#]*?)?)\s*:(?![=:])\s*(.*)$")
_JUST_WORD = lazy_regex(r"[A-Za-z_][\w-]*")
_QUOTED = lazy_regex(r"\"[^\"]*\"|'[^']*'")
_JUST_NOT_RECIPES = frozenset({"set", "alias", "export", "import", "mod", "unexport"})


def parse_justfile(text: str) -> Iterator[Recipe | None]:
    """``name params: deps`` headers and their indented bodies (``@``/``-`` prefixes dropped)."""
    for match, header, body in _blocks(text, _just_header, indent=(" ", "\t")):
        name = match.group(1)
        after_colon = _QUOTED.sub("", match.group(3).split("#")[0])
        deps = [f"just {d}" for d in _JUST_WORD.findall(after_colon)]
        yield recipe(name, f"just {name}", deps + _commands(body), _first(body, header),
                     "justfile")


def _just_header(line: str) -> re.Match[str] | None:
    """A recipe header, not a setting, alias, import or ``name := value`` assignment."""
    match = _JUST_HEADER.match(line)
    return match if match and match.group(1) not in _JUST_NOT_RECIPES else None


_MAKE_HEADER = lazy_regex(r"^([^\s:=#][^:=#]*?)\s*::?(?!=)\s*(.*)$")
_TARGET_VARIABLE = lazy_regex(r"^\s*[\w.]+\s*[:+?!]?=")
_MAKE_TARGET = lazy_regex(r"^[A-Za-z0-9_][\w.-]*$")
_MAKE_DIRECTIVE = lazy_regex(r"^-?(?:ifn?eq|ifn?def|else|endif|include|sinclude|define|endef|"
                             r"export|unexport|override|vpath|undefine)\b")


def parse_makefile(text: str) -> Iterator[Recipe | None]:
    """Targets with tab-indented bodies; pattern rules, special targets (.PHONY) and variable
    lines are skipped; a prerequisite the text defines as a target (``make_targets``) is run
    first (``make build``). A variable the text sets on one line (``PY ?= .venv/bin/python``)
    is put in for its ``$(PY)``, and ``$(MAKE)`` reads ``make``: what the target runs, as
    one would type it."""
    variables = _make_variables(text)
    defined = make_targets(text)
    for match, header, body in _blocks(text, _make_header, indent=("\t",)):
        targets, rest = match.groups()
        prerequisites, _, inline = _without_comment(rest).partition(";")
        deps = [f"make {d}" for d in prerequisites.split() if d in defined]
        commands = [_expanded(c, variables) for c in [inline.strip()] + _commands(body)]
        for target in targets.split():
            if _MAKE_TARGET.match(target) and not target.startswith("."):
                yield recipe(target, f"make {target}", deps + commands, _first(body, header),
                             "makefile")


def make_targets(text: str) -> frozenset[str]:
    """The names the text defines as targets: a rule's target, or a name declared
    ``.PHONY``. A prerequisite that is neither is a file or a folder (``build: src``), or a
    target the text does not show: ``make src`` would be a command no rule answers, so a
    recipe never says it runs one."""
    found: set[str] = set()
    for match, _, _ in _blocks(text, _make_header, indent=("\t",)):
        targets, rest = match.groups()
        names = targets.split()
        if names == [".PHONY"]:
            found.update(_without_comment(rest).partition(";")[0].split())
        found.update(name for name in names if not name.startswith("."))
    return frozenset(name for name in found if _MAKE_TARGET.match(name) and "." not in name)


_MAKE_VARIABLE = re.compile(r"^([A-Za-z_][\w]*)\s*(?:\?|:|::)?=\s*(.*?)\s*$", re.MULTILINE)
_MAKE_REFERENCE = re.compile(r"\$[({]([A-Za-z_]\w*)[)}]")


def _make_variables(text: str) -> dict[str, str]:
    """``NAME = value`` lines (``?=``, ``:=``, ``::=`` too) whose value is plain text: no
    function call or shell output, which only make can work out. ``MAKE`` is make itself."""
    found = {"MAKE": "make"}
    for name, value in _MAKE_VARIABLE.findall(text):
        if value and "$(" not in value and "${" not in value and "#" not in value \
                and "`" not in value:
            found.setdefault(name, value)
    return found


def _expanded(command: str, variables: dict[str, str]) -> str:
    return _MAKE_REFERENCE.sub(lambda m: variables.get(m.group(1), m.group(0)), command)


def _without_comment(rest: str) -> str:
    """A rule line after its colon, minus a comment that starts before any inline recipe:
    the words of ``test: ## run all tests`` (a self-documenting Makefile's help text) are no
    prerequisites. After ``;`` the line is a command, passed to the shell as written."""
    hash_at, semicolon_at = rest.find("#"), rest.find(";")
    if hash_at >= 0 and (semicolon_at < 0 or hash_at < semicolon_at):
        return rest[:hash_at]
    return rest


def _make_header(line: str) -> re.Match[str] | None:
    """A rule's first line, not a directive, a pattern rule, a target-specific variable or a
    ``::=`` assignment."""
    match = _MAKE_HEADER.match(line)
    if not match or _MAKE_DIRECTIVE.match(line) or "%" in match.group(1) or "$" in match.group(1):
        return None
    rest = match.group(2)
    return None if rest.startswith(("=", ":=")) or _TARGET_VARIABLE.match(rest) else match


Block = tuple[re.Match[str], str, list[tuple[str, str]]]


def _blocks(text: str, header_of: Callable[[str], re.Match[str] | None],
            indent: tuple[str, ...]) -> Iterator[Block]:
    """(header match, header line, body) for each header line and the indented lines under
    it. A body line is (command, quote): backslash-continued lines are joined into one
    command, and the quote is the first physical line, so it is found verbatim in the text."""
    header: tuple[re.Match[str], str] | None = None
    body: list[tuple[str, str]] = []
    for raw, quote in _logical_lines(text):
        if raw.startswith(indent) and raw.strip():
            if header is not None:
                body.append((_command(raw.strip()), quote))
        elif raw.strip():
            if header is not None:
                yield header[0], header[1], body
            match = header_of(raw)
            header, body = ((match, quote) if match else None), []
    if header is not None:
        yield header[0], header[1], body


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


_MIX_ALIASES = lazy_regex(r"^(\s*)defp?\s+aliases\b[^\n]*?\bdo\b(?!:)(.*?)^\1end\b", re.M | re.S)
_MIX_ENTRY = lazy_regex(r"^\s*\[?\s*(?:\"([\w.:-]+)\"|([a-z_][\w.]*)):\s*(.*)$")
_MIX_TASK = lazy_regex(r"\"((?:[^\"\\]|\\.)*)\"|(&[\w.]+/\d)")
_MIX_TASK_NAME = lazy_regex(r"^[a-z][\w.]*(\s|$)")
_MIX_NOT_ALIASES = frozenset({"deps", "aliases", "app", "version", "elixir", "elixirc_paths",
                              "extra_applications", "mod", "docs", "package", "test_paths",
                              "compilers", "preferred_cli_env", "listeners", "releases"})


def parse_mix_aliases(text: str) -> Iterator[Recipe | None]:
    """``name: ["task args", "task"]`` entries of ``defp aliases``; without that function in
    sight (a fragment), only entries whose value is a list of task strings count."""
    body = _MIX_ALIASES.search(text)
    lines = (body.group(2) if body else text).splitlines()
    index = 0
    while index < len(lines):
        entry = _MIX_ENTRY.match(lines[index].split(" #")[0])
        index += 1
        if not entry:
            continue
        name, value, quote = entry.group(1) or entry.group(2), entry.group(3), lines[index - 1]
        while value.count("[") > value.count("]") and index < len(lines):
            value += " " + lines[index].strip()
            index += 1
        tasks = _MIX_TASK.findall(value)
        commands = [string or ref for string, ref in tasks]
        if body is None and (not value.lstrip().startswith("[") or name in _MIX_NOT_ALIASES
                             or not all(_MIX_TASK_NAME.match(c) for c in commands)):
            continue
        yield recipe(name, f"mix {name}", commands, quote, "mix")


_NOX_DECORATOR = lazy_regex(r"^\s*@(?:nox\.)?session\b")
_DEF = lazy_regex(r"^(\s*)(?:async\s+)?def\s+(\w+)\s*\(")
_SESSION_RUN = lazy_regex(r"\bsession\.(?:run|run_always)\s*\(")
_NAME_KEYWORD = lazy_regex(r"\bname\s*=\s*[\"']([^\"']+)[\"']")
_ARGUMENT = lazy_regex(r"""[rRuU]?("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|\*\s*session\.(posargs)|"""
                       r",\s*\w+\s*=(?!=)")
_PY_STRING_OR_COMMENT = lazy_regex(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|#.*')


def parse_noxfile(text: str) -> Iterator[Recipe | None]:
    """``@nox.session`` functions (``name=`` honoured) and the ``session.run`` calls in them.

    Read line by line rather than with ``ast``: a fragment need not be valid Python, and a
    line scan stays cheap on a large file. Only literal arguments are kept (``*session.posargs``
    reads as ``{posargs}``); keyword arguments end the command.
    """
    lines = text.splitlines()
    decorator: str | None = None
    session: tuple[str, int, list[str], list[str]] | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        if session and line.strip() and len(line) - len(line.lstrip()) <= session[1]:
            yield _nox_recipe(*session)
            session = None
        definition = _DEF.match(line)
        if _NOX_DECORATOR.match(line):
            decorator, index = _balanced(lines, index)
            continue
        if definition:
            if decorator is not None:
                named = _NAME_KEYWORD.search(decorator)
                name = named.group(1) if named else definition.group(2)
                session = (name, len(definition.group(1)), [], [])
            decorator = None
        elif session and _SESSION_RUN.search(line):
            call, index = _balanced(lines, index)
            session[2].append(" ".join(_literal_arguments(call)))
            session[3].append(line.strip())
            continue
        index += 1
    if session:
        yield _nox_recipe(*session)


def _nox_recipe(name: str, _indent: int, commands: list[str], quotes: list[str]
                ) -> Recipe | None:
    return recipe(name, f"nox -s {name}", commands, quotes[0], "nox") if quotes else None


def _balanced(lines: list[str], start: int) -> tuple[str, int]:
    """The lines from ``start`` joined until their parentheses close (at most 50), and the
    index after them."""
    depth, end = 0, start
    while end < len(lines) and end - start < 50:
        bare = _PY_STRING_OR_COMMENT.sub("", lines[end])
        depth += bare.count("(") - bare.count(")")
        end += 1
        if depth <= 0:
            break
    return " ".join(line.strip() for line in lines[start:end]), end


def _literal_arguments(call: str) -> list[str]:
    opened = _SESSION_RUN.search(call)
    words = []
    for argument in _ARGUMENT.finditer(call, opened.end() if opened else 0):
        if argument.group(1):
            words.append(argument.group(1)[1:-1])
        elif argument.group(2):
            words.append("{posargs}")
        else:
            break
    return words


_TOX_SECTION = lazy_regex(r"^\[(testenv(?::([^\]]+))?)\]\s*$")
_TOX_COMMANDS = lazy_regex(r"^commands\s*[=:]\s*(.*)$")


def parse_tox_ini(text: str) -> Iterator[Recipe | None]:
    """``commands`` of each ``[testenv]`` / ``[testenv:name]`` section (``tox`` / ``tox -e``)."""
    section, index = None, 0
    lines = text.splitlines()
    while index < len(lines):
        line = lines[index]
        index += 1
        header = _TOX_SECTION.match(line.strip())
        if header or line.strip().startswith("["):
            section = (header.group(2) or "") if header else None
            continue
        key = _TOX_COMMANDS.match(line)
        if section is None or not key:
            continue
        commands = [key.group(1).strip()]
        while index < len(lines) and lines[index][:1] in (" ", "\t"):
            commands.append(lines[index].strip())
            index += 1
        commands = [c for c in commands if c and not c.startswith("#")]
        invocation = f"tox -e {section}" if section else "tox"
        quote = commands[0] if commands else line
        yield recipe(section or "testenv", invocation, commands, quote, "tox")
