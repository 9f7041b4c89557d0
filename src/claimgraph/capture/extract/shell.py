"""Shell command lines as the simple commands they run, and which of them surely succeeded.

A tool result tells how the WHOLE line ended. ``a && b && c`` succeeding means all three did;
after ``;`` or ``||`` only the last part is known; ``x | tail`` reports tail's status, so x's
outcome is unknown (``piped``). Anything this parser cannot read safely (command
substitution, subshells, unbalanced quotes) yields nothing rather than a guess.
"""

from __future__ import annotations

import functools
import posixpath
import re
import shlex
from dataclasses import dataclass
from typing import Any, Mapping
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event
from claimgraph.capture.foreign_paths import as_posix, windows_path
from claimgraph.capture.extract.tools import SHELL, names_of

SHELL_TOOLS = names_of(SHELL)  # the one table: extract/tools.py
#: Pipeline stages that only trim or copy output: the command before them is what ran.
OUTPUT_FILTERS = frozenset({"tail", "head", "cat", "tee", "less", "more"})
_REDIRECTS = frozenset({">", ">>", "<", ">&", "&>", "<&", ">|", "&>>", "<<<"})
_OPERATORS = frozenset({"&&", "||", ";", "&", "|", ";;"})
_ASSIGNMENT = lazy_regex(r"^[A-Za-z_][A-Za-z0-9_]*=")
_WRAPPERS = frozenset({"sudo", "time", "nice", "command", "exec", "env", "nohup", "timeout"})


@dataclass(frozen=True)
class Invocation:
    """One simple command: its words (assignments and redirections removed), the directory
    it ran in as far as ``cd`` tells, whether the line's success implies its own
    (``confirmed``), and whether its output went into a pipe (``piped``) that held only
    output filters (``filtered``)."""

    argv: tuple[str, ...]
    cwd: str | None
    confirmed: bool
    piped: bool = False
    filtered: bool = False


@dataclass(frozen=True)
class _Pipeline:
    stages: tuple[tuple[str, ...], ...]
    before: str | None
    after: str | None


def command_text(call: Event) -> str | None:
    """The command line of a shell tool call, whatever the agent's argument shape."""
    if call.tool_name not in SHELL_TOOLS:
        return None
    tool_input: Mapping[str, Any] = call.tool_input or {}
    command = tool_input.get("command", tool_input.get("cmd"))
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) == 3 and command[0] in ("bash", "sh", "zsh") and command[1] in (
                "-c", "-lc"):
            return command[2]
        return shlex.join(command)
    return command if isinstance(command, str) else None


def call_cwd(call: Event) -> str | None:
    """Codex states the working directory per call; the others record the agent's cwd. A
    Windows one is read in its POSIX form (foreign_paths.py), as every path of the session."""
    workdir = (call.tool_input or {}).get("workdir")
    if isinstance(workdir, str) and (workdir.startswith("/") or windows_path(workdir)):
        return as_posix(workdir)
    return as_posix(call.cwd) if call.cwd else None


@functools.lru_cache(maxsize=4096)
def invocations(command: str, cwd: str | None = None) -> tuple[Invocation, ...]:
    """The simple commands of a line, in order; () when the line cannot be read safely.
    Memoized: several sources ask about the same command, and tokenizing is the cost."""
    return tuple(_invocations(command, cwd))


def _invocations(command: str, cwd: str | None) -> list[Invocation]:
    tokens = _tokens(_first_logical_line(command))
    if tokens is None or "(" in tokens or ")" in tokens:
        return []
    pipelines = _pipelines(tokens)
    found: list[Invocation] = []
    for index, pipeline in enumerate(pipelines):
        argv = _plain_words(list(pipeline.stages[0]))
        if argv and argv[0] == "cd":
            cwd = _change_dir(cwd, argv)
        if not argv:
            continue
        later = [posixpath.basename(stage[0]) for stage in pipeline.stages[1:] if stage]
        found.append(Invocation(tuple(argv), cwd, _confirmed(pipelines, index),
                                piped=len(pipeline.stages) > 1,
                                filtered=all(name in OUTPUT_FILTERS for name in later)))
    return found


def _first_logical_line(command: str) -> str:
    """A heredoc's body is data, not commands: only the line that opens it is parsed."""
    joined = command.replace("\\\n", " ")
    return joined.split("\n", 1)[0] if "<<" in joined else joined.replace("\n", " ; ")


def _tokens(line: str) -> list[str] | None:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return [token for token in lexer if "$(" not in token and "`" not in token]
    except ValueError:
        return None


def _pipelines(tokens: list[str]) -> list[_Pipeline]:
    """Split at control operators, remembering the operator on each side of a pipeline."""
    pipelines: list[_Pipeline] = []
    stages: list[list[str]] = [[]]
    before: str | None = None
    for token in [*tokens, None]:
        if token == "|":
            stages.append([])
        elif token is None or token in _OPERATORS:
            if stages[0]:
                pipelines.append(_Pipeline(tuple(map(tuple, stages)), before, token))
            before, stages = token, [[]]
        else:
            stages[-1].append(token)
    return pipelines


def _confirmed(pipelines: list[_Pipeline], index: int) -> bool:
    """The line's success implies this pipeline's when only ``&&`` leads from it to the
    end; a pipeline sent to the background (``&``) or reached only after ``||`` (it may
    never have run) is never confirmed."""
    if pipelines[index].before == "||":
        return False
    for pipeline in pipelines[index:-1]:
        if pipeline.after != "&&":
            return False
    return pipelines[-1].after is None


def _plain_words(words: list[str]) -> list[str]:
    """Drop redirections (with their targets and fd numbers) and leading assignments."""
    plain: list[str] = []
    skip_next = False
    for index, word in enumerate(words):
        if skip_next:
            skip_next = False
        elif word in _REDIRECTS or word.startswith(("<<", ">>")):
            skip_next = True
        elif word.isdigit() and index + 1 < len(words) and words[index + 1] in _REDIRECTS:
            continue
        elif not plain and _ASSIGNMENT.match(word):
            continue
        else:
            plain.append(word)
    return plain


def _change_dir(cwd: str | None, argv: list[str]) -> str | None:
    """Follow ``cd`` so relative paths later in the line resolve; unknowable targets
    (``~``, ``-``, variables) make the directory unknown."""
    target = argv[1] if len(argv) == 2 else None
    if not target or target.startswith(("~", "-", "$")):
        return None
    if posixpath.isabs(target):
        return posixpath.normpath(target)
    return posixpath.normpath(posixpath.join(cwd, target)) if cwd else None


def unwrap(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The command a runner wraps: ``sudo``, ``uv run``, ``npx``, ``python -m`` ... removed,
    and the program reduced to its base name (``.venv/bin/pytest`` is pytest)."""
    words = list(argv)
    while words and (words[0] in _WRAPPERS or _ASSIGNMENT.match(words[0])):
        words = words[2:] if words[0] == "timeout" else words[1:]
    if len(words) >= 2 and words[0] in ("uv", "poetry", "pipenv", "pdm", "hatch", "rye") \
            and words[1] == "run":
        words = _skip_flags(words[2:])
    elif words and words[0] in ("npx", "bunx", "pnpx"):
        words = _skip_flags(words[1:])
    elif len(words) >= 2 and (words[0], words[1]) in (("pnpm", "exec"), ("pnpm", "dlx"),
                                                    ("yarn", "dlx"), ("bundle", "exec")):
        words = words[2:]
    if len(words) >= 3 and re.fullmatch(r"python[\d.]*", posixpath.basename(words[0])) \
            and words[1] == "-m":
        module = words[2]
        words = ["python -m build" if module == "build" else module, *words[3:]]
    if words:
        words[0] = posixpath.basename(words[0])
    return tuple(words)


#: A wrapper's flags that take the next word as their value (``uv run --group dev pytest``).
_WRAPPER_VALUES = frozenset({"--group", "--only-group", "--with", "--with-requirements",
                             "--extra", "--package", "--python", "-p", "--directory",
                             "--project", "--env-file", "--index", "--from", "-w"})


def _skip_flags(words: list[str]) -> list[str]:
    while words and words[0].startswith("-"):
        words = words[2:] if words[0] in _WRAPPER_VALUES else words[1:]
    return words


def positional(argv: tuple[str, ...]) -> list[str]:
    """Words that are not flags (``+nightly`` toolchains count as flags)."""
    return [word for word in argv if not word.startswith(("-", "+"))]


#: Programs that only show things: a choice's name in their arguments is no evidence.
_READERS = frozenset({"cat", "ls", "grep", "rg", "head", "tail", "find", "less", "more", "wc",
                      "echo", "printf", "stat", "file", "tree", "which", "type", "nl", "bat",
                      "sed", "awk", "jq", "diff", "curl", "open"})
_GIT_READS = frozenset({"status", "log", "diff", "show", "branch", "remote", "ls-files",
                        "rev-parse", "blame", "grep", "fetch"})


def only_reads(command: str) -> bool:
    """Every program the command runs only looks (``ls``, ``git status``): it changes nothing."""
    runs = invocations(command)
    return bool(runs) and all(_reads(run.argv) for run in runs)


def looks(argv: tuple[str, ...]) -> bool:
    """One simple command only looks (``ls``, ``git status``, ``cd``): it changes nothing."""
    return not argv or argv[0] == "cd" or _reads(argv)


def _reads(argv: Any) -> bool:
    if not argv:
        return True
    program = str(argv[0]).rsplit("/", 1)[-1]
    if program == "git":
        verb = next((a for a in argv[1:] if not str(a).startswith("-")), "")
        return verb in _GIT_READS
    return program in _READERS
