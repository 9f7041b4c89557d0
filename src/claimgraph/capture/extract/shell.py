"""Shell command lines as the simple commands they run, and which of them surely succeeded.

A tool result tells how the WHOLE line ended. ``a && b && c`` succeeding means all three did;
after ``;`` or ``||`` only the last part is known; ``x | tail`` reports tail's status, so x's
outcome is unknown (``piped``). A line is a whole script: every line of it is read, a
newline separates commands like ``;``, a heredoc's body is skipped (it is data), and a
command substitution (``$(…)``, backticks) is a word whose value is unknown, left out of
the words, quotes and heredocs inside it included (so the classic ``git commit -m "$(cat
<<'EOF' … EOF)"`` is a commit, and ``git push`` after it is read too). What this parser
cannot read safely (subshells, unbalanced quotes) yields nothing rather than a guess.

Every rule that asks what a command line runs asks here (``invocations``), never with a
regular expression of its own: a regex sees ``git tag v2`` inside a commit message.
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
_OPERATORS = frozenset({"&&", "||", ";", "&", "|", ";;", "|&"})
_ASSIGNMENT = lazy_regex(r"^[A-Za-z_][A-Za-z0-9_]*=")
_WRAPPERS = frozenset({"sudo", "time", "nice", "command", "exec", "env", "nohup", "timeout"})


@dataclass(frozen=True, slots=True)
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
    Memoized: several sources ask about the same command, and tokenizing is the cost. The
    line is tokenized once whatever directory it is asked about in (``_parsed``): one rule
    asks without one (``only_reads``), another with the call's."""
    found: list[Invocation] = []
    for argv, confirmed, piped, filtered in _parsed(command):
        if argv[0] in _CHANGE_DIR:
            cwd = _change_dir(cwd, list(argv))
        found.append(Invocation(argv, cwd, confirmed, piped=piped, filtered=filtered))
    return tuple(found)


@functools.lru_cache(maxsize=4096)
def _parsed(command: str) -> tuple[tuple[tuple[str, ...], bool, bool, bool], ...]:
    """Each simple command of a line that has words: (argv, confirmed, piped, filtered), what
    ``Invocation`` holds but the directory, which only ``cd`` and the caller's cwd decide."""
    tokens = _tokens(command)
    if tokens is None or any(isinstance(t, _Op) and t in ("(", ")") for t in tokens):
        return ()  # a subshell or a function: where its commands run is not followed
    pipelines = _pipelines(tokens)
    found: list[tuple[tuple[str, ...], bool, bool, bool]] = []
    for index, pipeline in enumerate(pipelines):
        argv = _plain_words(list(pipeline.stages[0]))
        if not argv:
            continue
        later = [posixpath.basename(words[0]) for stage in pipeline.stages[1:]
                 if (words := _plain_words(list(stage)))]
        found.append((tuple(argv), _confirmed(pipelines, index), len(pipeline.stages) > 1,
                      all(name in OUTPUT_FILTERS for name in later)))
    return tuple(found)


def _tokens(line: str) -> list[str] | None:
    try:
        return _Lexer(line).tokens()
    except ValueError:
        return None


class _Op(str):
    """A control or redirection operator, as opposed to a word that only reads like one
    (``grep ">" f``: the quoted ``>`` is an argument)."""


class _Subst(str):
    """A word built from a command substitution (``$(…)``, backticks, ``<(…)``): its value
    is only known when the line runs."""


_CONTROL = ("&&", "||", ";;", "|&", ";", "&", "|", "(", ")")
_REDIRECTIONS = ("&>>", "<<<", "<<-", "&>", ">>", ">&", "<&", ">|", "<>", "<<", ">", "<")
#: Longest first, so ``&>`` is not read as ``&`` and ``>``.
_ALL_OPS = tuple(sorted((*_CONTROL, *_REDIRECTIONS), key=len, reverse=True))
_BREAK = frozenset(" \t\n;&|()<>")
#: Where an operator can start (every one of ``_ALL_OPS`` starts with one of these).
_OPERATOR_STARTS = frozenset("&|;()<>")
#: Runs of characters each loop below would only copy (or skip) one at a time: a word's
#: plain characters, a double-quoted string's, a substitution's. Taken whole, the same text.
_PLAIN_RUN = re.compile(r"[^ \t\n;&|()<>\\'\"`$]+")
_QUOTED_RUN = re.compile(r"[^\"\\`$]+")
_SUBST_RUN = re.compile(r"[^\\'\"$`<\n()]+")


class _Lexer:
    """Words and operators of a whole shell script: quotes removed, line continuations
    joined, comments dropped, a heredoc's body skipped (data, not commands), a newline a
    separator like ``;``. Substitutions are scanned to their end, quotes and heredocs inside
    them included, so a commit message in ``"$(cat <<'EOF' … EOF)"`` never breaks the line.
    Raises ValueError on an unbalanced quote or substitution."""

    def __init__(self, text: str) -> None:
        self.text = text.replace("\\\r\n", "").replace("\\\n", "")
        self.at = 0
        self.heredocs: list[tuple[str, bool]] = []  # (delimiter, tabs stripped)

    def tokens(self) -> list[str]:
        found: list[str] = []
        text = self.text
        while self.at < len(text):
            char = text[self.at]
            if char in " \t\r":
                self.at += 1
            elif char == "\n":
                self.at += 1
                self._bodies()
                found.append(_Op(";"))
            elif char == "#":
                self._comment()
            elif op := self._operator():
                found.append(op)
                if op in ("<<", "<<-"):
                    found.append(self._delimiter(op == "<<-"))
            else:
                found.append(self._word())
        return found

    def _operator(self) -> _Op | None:
        text, start = self.text, self.at
        digits = start
        while digits < len(text) and text[digits].isdigit():
            digits += 1
        if digits > start and not text.startswith((">", "<"), digits):
            return None  # a number, not a file descriptor
        if digits >= len(text) or text[digits] not in _OPERATOR_STARTS:
            return None  # no operator starts here: a word
        for op in _REDIRECTIONS if digits > start else _ALL_OPS:
            if text.startswith(op, digits):
                if op in ("<", ">") and text.startswith("(", digits + 1):
                    return None  # process substitution: a word
                self.at = digits + len(op)
                return _Op(op)
        return None

    def _delimiter(self, tabs: bool) -> str:
        """A heredoc's closing word (quotes removed); its body starts at the next newline."""
        while self.at < len(self.text) and self.text[self.at] in " \t":
            self.at += 1
        word = self._word()
        self.heredocs.append((str(word), tabs))
        return word

    def _bodies(self) -> None:
        """Skip the bodies of the heredocs opened on the line just ended, each up to its
        delimiter's own line (or the end of the text)."""
        for delimiter, tabs in self.heredocs:
            while self.at < len(self.text):
                end = self.text.find("\n", self.at)
                line = self.text[self.at:] if end < 0 else self.text[self.at:end]
                self.at = len(self.text) if end < 0 else end + 1
                if (line.lstrip("\t") if tabs else line).rstrip() == delimiter:
                    break
        self.heredocs = []

    def _comment(self) -> None:
        end = self.text.find("\n", self.at)
        self.at = len(self.text) if end < 0 else end

    def _word(self) -> str:
        text = self.text
        parts: list[str] = []
        substituted = False
        while self.at < len(text):
            char = text[self.at]
            if char in _BREAK and not (char in "<>" and text.startswith("(", self.at + 1)):
                break
            if char == "\\":
                escaped = text[self.at + 1:self.at + 2]
                # before a letter or digit a backslash escapes nothing in a POSIX shell, and
                # on a Windows machine it separates a path (``cd C:\Users\me\app``): kept
                parts.append(char + escaped if escaped.isalnum() else escaped)
                self.at += 2
            elif char == "'":
                end = text.find("'", self.at + 1)
                if end < 0:
                    raise ValueError("unbalanced single quote")
                parts.append(text[self.at + 1:end])
                self.at = end + 1
            elif char == '"':
                parts_in, subst = self._double_quoted()
                parts.append(parts_in)
                substituted |= subst
            elif text.startswith(("$(", "<(", ">("), self.at) or char == "`":
                parts.append(self._substitution())
                substituted = True
            else:
                run = _PLAIN_RUN.match(text, self.at)
                end = run.end() if run else self.at + 1  # a lone "$" is plain too
                parts.append(text[self.at:end])
                self.at = end
        word = "".join(parts)
        return _Subst(word) if substituted else word

    def _double_quoted(self) -> tuple[str, bool]:
        text = self.text
        self.at += 1
        parts: list[str] = []
        substituted = False
        while self.at < len(text):
            char = text[self.at]
            if char == '"':
                self.at += 1
                return "".join(parts), substituted
            if char == "\\":
                nxt = text[self.at + 1:self.at + 2]
                parts.append(nxt if nxt in '"\\$`' else char + nxt)
                self.at += 2
            elif text.startswith("$(", self.at) or char == "`":
                parts.append(self._substitution())
                substituted = True
            else:
                run = _QUOTED_RUN.match(text, self.at)
                end = run.end() if run else self.at + 1  # a lone "$" is plain too
                parts.append(text[self.at:end])
                self.at = end
        raise ValueError("unbalanced double quote")

    def _substitution(self) -> str:
        """Skip ``$(…)``, ``<(…)`` or a backtick pair, nested quotes, substitutions and
        heredoc bodies included; the text stands for a value unknown until it runs."""
        text = self.text
        start = self.at
        if text[self.at] == "`":
            end = text.find("`", self.at + 1)
            if end < 0:
                raise ValueError("unbalanced backtick")
            self.at = end + 1
            return text[start:self.at]
        self.at += 2
        depth = 1
        while self.at < len(text):
            char = text[self.at]
            if char == "\\":
                self.at += 2
            elif char == "'":
                end = text.find("'", self.at + 1)
                if end < 0:
                    raise ValueError("unbalanced single quote")
                self.at = end + 1
            elif char == '"':
                self._double_quoted()
            elif text.startswith("$(", self.at) or char == "`":
                self._substitution()
            elif text.startswith("<<", self.at) and not text.startswith("<<<", self.at):
                tabs = text.startswith("<<-", self.at)
                self.at += 3 if tabs else 2
                self._delimiter(tabs)
            elif char == "\n":
                self.at += 1
                self._bodies()
            elif char == "(":
                depth += 1
                self.at += 1
            elif char == ")":
                depth -= 1
                self.at += 1
                if depth == 0:
                    return text[start:self.at]
            else:
                run = _SUBST_RUN.match(text, self.at)
                self.at = run.end() if run else self.at + 1
        raise ValueError("unbalanced substitution")


def _pipelines(tokens: list[str]) -> list[_Pipeline]:
    """Split at control operators, remembering the operator on each side of a pipeline."""
    pipelines: list[_Pipeline] = []
    stages: list[list[str]] = [[]]
    before: str | None = None
    for token in [*tokens, None]:
        if isinstance(token, _Op) and token in ("|", "|&"):
            stages.append([])
        elif token is None or (isinstance(token, _Op) and token in _OPERATORS):
            if stages[0]:
                pipelines.append(_Pipeline(tuple(map(tuple, stages)), before, token))
            before, stages = token, [[]]
        else:
            stages[-1].append(token)
    return pipelines


def _confirmed(pipelines: list[_Pipeline], index: int) -> bool:
    """The line's success implies this pipeline's when only ``&&`` leads from it to the
    end; a pipeline sent to the background (``&``) or reached only after ``||`` (it may
    never have run) is never confirmed. A separator with nothing after it (the newline
    before a heredoc's body, a closing ``;``) ends the line like its end does."""
    if pipelines[index].before == "||":
        return False
    for pipeline in pipelines[index:-1]:
        if pipeline.after != "&&":
            return False
    return pipelines[-1].after in (None, ";")


def _plain_words(words: list[str]) -> list[str]:
    """Drop redirections (with their targets), leading assignments and words whose value
    only a substitution knows."""
    plain: list[str] = []
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
        elif isinstance(word, _Op):
            skip_next = True  # only redirections are left inside a pipeline stage
        elif isinstance(word, _Subst):
            continue
        elif not plain and _ASSIGNMENT.match(word):
            continue
        else:
            plain.append(word)
    return plain


#: A home folder at the start of a path (macOS, Linux, Windows in its POSIX form).
_HOME = lazy_regex(r"^(?:/Users|/home|/[A-Za-z]:/Users)/[^/]+(?=/|$)")
#: Commands that change the directory of what follows (POSIX shells, cmd, PowerShell).
_CHANGE_DIR = frozenset({"cd", "pushd", "chdir", "Set-Location", "sl"})


def _change_dir(cwd: str | None, argv: list[str]) -> str | None:
    """Follow ``cd`` so relative paths later in the line resolve; unknowable targets
    (``~``, ``-``, variables) make the directory unknown."""
    words = [w for w in argv[1:] if w.lower() not in ("/d", "-path", "-literalpath")]
    target = words[0] if len(words) == 1 else None
    if target and windows_path(target):
        return windows_path(target)
    if target and (target == "~" or target.startswith("~/")) and cwd:
        home = _HOME.match(cwd)  # the recording machine's home, from the folder it was in
        return posixpath.normpath(home[0] + target[1:]) if home else None
    if not target or target.startswith(("~", "-", "$")):
        return None
    if posixpath.isabs(target):
        return posixpath.normpath(target)
    return posixpath.normpath(posixpath.join(cwd, target)) if cwd else None


def unwrap(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The command a runner wraps: ``sudo``, ``uv run``, ``npx``, ``python -m`` ... removed,
    and the program reduced to its base name (``.venv/bin/pytest`` is pytest). A tuple's
    answer is kept (``_UNWRAP_MEMO``): a dozen rules ask it of the same commands."""
    return _unwrapped(argv) if type(argv) is tuple else _unwrap(argv)


#: Commands whose unwrapped form is kept: a 200 MB session asked ~230,000 times (issue 29).
_UNWRAP_MEMO = 4096


@functools.lru_cache(maxsize=_UNWRAP_MEMO)
def _unwrapped(argv: tuple[str, ...]) -> tuple[str, ...]:
    return _unwrap(argv)


def _unwrap(argv: tuple[str, ...]) -> tuple[str, ...]:
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
