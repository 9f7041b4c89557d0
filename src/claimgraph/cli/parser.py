"""The ``claimgraph`` command line's parser: global flags, and each command's group loaded
on demand (``commands.GROUP_OF`` says which group defines a command word).

Kept apart from ``main`` so ``claimgraph --version`` answers without importing argparse.
"""

from __future__ import annotations

import argparse

from claimgraph import __version__
from claimgraph.cli.commands import GROUP_OF, GROUPS, group

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, NoReturn, Sequence

#: Global flags that take a value (so the word after them is not the command).
_VALUE_FLAGS = ("--db", "--lease-wait", "--config")


class UsageError(Exception):
    """argparse's complaint, carried out of the parser so the boundary decides how to print it."""

    def __init__(self, prog: str, usage: str, message: str) -> None:
        super().__init__(message)
        self.prog, self.usage, self.message = prog, usage, message


class Parser(argparse.ArgumentParser):
    #: The command word this sub-parser reads; its help ends with that command's examples.
    command: str | None = None

    def error(self, message: str) -> NoReturn:
        raise UsageError(self.prog, self.format_usage().strip(), message)

    def format_help(self) -> str:
        text = super().format_help()
        examples = self.examples()
        if not examples:
            return text
        return text + "\nexamples:\n" + "".join(f"  {line}\n" for line in examples)

    def examples(self) -> Sequence[str]:
        """Command lines shown under "examples:" (``cli.examples``, loaded for a help only)."""
        if self.command is None:
            return ()
        from claimgraph.cli.examples import EXAMPLES
        return EXAMPLES.get(self.command, ())

    def _get_formatter(self) -> argparse.HelpFormatter:
        """argparse builds a formatter for every argument it adds, and without a width each
        one imports ``shutil`` (with bz2 and lzma) to ask the terminal's; the same answer,
        from ``os``."""
        kind = self.formatter_class
        if isinstance(kind, type) and issubclass(kind, argparse.HelpFormatter):
            return kind(prog=self.prog, width=_help_width())
        return super()._get_formatter()  # a formatter of another shape: argparse's own way


def _help_width() -> int:
    """What argparse would use: $COLUMNS, else the terminal's width, else 80; less 2."""
    import os
    import sys
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        stdout = sys.__stdout__  # None under pythonw or a closed descriptor 1
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns if stdout else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


def milliseconds(text: str) -> int:
    """A wait in ms: a whole number, zero (do not wait) or more."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of milliseconds ≥ 0")
    return int(text)


def global_flags(suppress: bool) -> argparse.ArgumentParser:
    """The flags every command accepts, before or after its name: a parent for sub-parsers.

    Sub-parsers use SUPPRESS defaults so a flag given before the command is not overwritten.
    """
    return add_global_flags(Parser(add_help=False), suppress)


def add_global_flags(parser: argparse.ArgumentParser, suppress: bool) -> argparse.ArgumentParser:
    """``global_flags`` added to ``parser`` itself (the top-level parser takes them so, not
    from a parent built only to be copied: one parser fewer on every command's start)."""
    default: dict[str, Any] = {"default": argparse.SUPPRESS} if suppress else {}
    flags = parser.add_argument_group("global options (before or after the command)")
    flags.add_argument("--db", metavar="PATH", help="the store (default: $CLAIMGRAPH_DB, "
                       "else the config file's db, else $XDG_DATA_HOME/claimgraph/claims.db)",
                       **default)
    flags.add_argument("--json", action="store_true", help="machine-readable output; "
                       "errors as JSON on stderr", **default)
    flags.add_argument("--lease-wait", metavar="MS", type=milliseconds,
                       help="how long a write waits "
                       "for another writer's lease (default 5000)", **default)
    flags.add_argument("--config", metavar="FILE", help="config file (default: "
                       "$XDG_CONFIG_HOME/claimgraph/config.toml)", **default)
    return parser


def command_word(argv: Sequence[str]) -> str | None:
    """The command named in ``argv`` (the first word that is not a global flag or its value),
    or None when there is none; ``--`` and anything unusual also give None (the full parser
    then decides, exactly as before)."""
    words = iter(argv)
    for word in words:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word
        if "=" not in word and any(f.startswith(word) for f in _VALUE_FLAGS if len(word) > 2):
            next(words, None)
    return None


class _Elsewhere:
    """A sub-parser of a command the command line does not name: whatever its group adds to
    it (arguments, groups of them, defaults) goes nowhere."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: self


class _OnlyCommand:
    """The sub-parsers action, building the parser of one command word only: a group defines
    several (``search`` with ``neighbor`` and ``conflicts``, ``facts`` with ``assert``,
    ``history`` and ``invalidate``), and building its neighbours' parsers cost a read command
    ~0.5 ms of its start for arguments it never parses (issue 29)."""

    def __init__(self, sub: Any, word: str) -> None:
        self._sub, self._word = sub, word

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        if name == self._word:
            return self._sub.add_parser(name, **kwargs)
        return _Elsewhere()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sub, name)


def build_parser(groups: Sequence[str] = GROUPS, only: str | None = None) -> Parser:
    """The parser with the given groups' commands (all of them by default); ``only``: of
    those, the parser of this command word alone (a word of one of the groups)."""
    parser = Parser(prog="claimgraph",
                    description="A local-first memory for coding agents: facts with history, "
                                "provenance and conflicts.",
                    epilog="New here? Run `claimgraph demo`. Exit codes: 0 ok, 1 the command "
                           "failed, 2 usage error.")
    add_global_flags(parser, suppress=False)
    parser.add_argument("--version", action="version", version=f"claimgraph {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                parser_class=Parser)
    common = global_flags(suppress=True)
    adding = sub if only is None else _OnlyCommand(sub, only)
    for name in groups:
        group(name).add_parsers(adding, common)
    for name, choice in sub.choices.items():
        choice.command = name
    return parser


def parser_for(argv: Sequence[str]) -> Parser:
    """Only the named command's parser when the command is known; none for a bare --version or
    a missing command; every group for --help and for a word that names no command (so the
    top-level help and "invalid choice" list them all)."""
    word = command_word(argv)
    if word in GROUP_OF:
        return build_parser([GROUP_OF[word]], only=word)
    if word is None and not {"-h", "--help"} & set(argv):
        return build_parser(())
    return build_parser()
