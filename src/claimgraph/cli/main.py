"""``claimgraph``: the error boundary (the parser is ``cli.parser``, the command table
``cli.commands``).

This module owns the exit codes:
0 ok, 1 the command failed (a one-line message and what to do), 2 usage, 130 interrupted. An
unexpected exception is a bug: one line on stderr, the traceback in a crash file beside the db.
"""

from __future__ import annotations

import os
import sys

from claimgraph import __version__
from claimgraph.private import restrict_umask

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    import argparse
    from typing import Any, NoReturn

    from claimgraph.cli.invocation import Invocation
    from claimgraph.cli.parser import UsageError
    from claimgraph.errors import ClaimgraphError

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: Commands whose process loads asyncio only if something uses it: a capture's memory (issue 29).
DEFER_ASYNCIO = frozenset({"capture"})
#: Commands that only read, start no thread and leave no file open: their process ends at once
#: once they answered (``quick_exit``).
QUICK_EXIT = frozenset({"facts", "history", "search", "neighbor", "conflicts", "status", "stats"})


def main(argv: list[str] | None = None) -> int:
    restrict_umask()  # whatever this command (or a child it starts) creates is private
    entry = argv is None  # the process's own command line (the console script, -m)
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--version"]:  # answered before anything else loads
        print(f"claimgraph {__version__}")
        return EXIT_OK
    if not argv:  # a person trying the command out: what it can do, not a usage error
        argv = ["--help"]
    if entry:
        from claimgraph import startup
        startup.loading()  # the modules and the parser live until exit (claimgraph.startup)
        from claimgraph.deferred import (
            defer, defer_contextlib, defer_datetime, defer_gettext, defer_urllib_parse)
        defer_urllib_parse()  # pathlib's, for file URIs; no read asks for one (the same)
        defer_datetime()  # sqlite3's, for the C module's classes alone (the same)
        defer("ipaddress")  # urllib.parse's, for bracketed URL hosts (claimgraph.deferred)
        defer("ntpath")  # pathlib's, for Windows paths; POSIX's own is os.path (the same)
        defer("warnings")  # argparse's, for deprecated calls we never make (the same)
        defer_gettext()  # argparse's translations, where no catalog can exist (the same)
        defer_contextlib()  # for blocks a read never enters; real at their first call (the same)
    try:
        args = plain_search(argv)
        if args is None:
            from claimgraph.cli.parser import UsageError, command_word, parser_for
            if entry and command_word(argv) in DEFER_ASYNCIO:
                defer("asyncio")  # structlog imports it, capture never uses it (the same)
            try:
                args = parser_for(argv).parse_args(argv)
            except UsageError as err:
                return report_usage(err, "--json" in argv)
            except SystemExit as done:  # --help and --version exit through argparse
                return int(done.code or 0)
    finally:
        if entry:
            startup.settle()
    ending = entry and args.command in QUICK_EXIT
    code = run(args, argv, ending=ending)
    if ending:
        quick_exit(code)
    return code


def plain_search(argv: list[str]) -> Any:
    """``search WORD...`` without a flag, the form people and agents type most, read as the
    parser reads it (the same attributes, with the same values; tests/cli/test_main.py
    compares them) without loading argparse or building the parser: ~5% of a search's
    instructions (issue 29). None for any other command line, which the parser reads: a word
    that starts with a dash (a flag, ``--``, a negative number) or no word at all."""
    if len(argv) < 2 or argv[0] != "search" or any(w.startswith("-") for w in argv[1:]):
        return None
    from types import SimpleNamespace  # loaded already (enum and functools use it)

    from claimgraph.cli.commands import group
    return SimpleNamespace(db=None, json=False, lease_wait=None, config=None, command="search",
                           query=argv[1:], limit=group("search").DEFAULT_LIMIT, scope=None,
                           all_projects=False)


def quick_exit(code: int) -> NoReturn:
    """End a read command's process without the interpreter's teardown, which frees every
    module and object one by one for nothing (~3-5 ms of a read's ~65 ms of CPU, issue 29;
    mypy ends its runs the same way). What an exit owes is still done: the exit handlers run
    and the output is flushed (a reader that left is treated as during the command)."""
    import atexit
    try:
        atexit._run_exitfuncs()
    finally:
        try:
            sys.stdout.flush()
        except BrokenPipeError:  # `claimgraph facts | head`: the reader left
            silence_stdout()
            code = code or EXIT_FAILED
        except (OSError, ValueError):
            code = code or EXIT_FAILED
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        os._exit(code)


def run(args: argparse.Namespace, argv: list[str], ending: bool = False) -> int:
    """The parsed command inside the error boundary (the module docstring's exit codes).
    ``ending``: the process ends once it answered (``quick_exit``), so a store it only read
    is left to the exit (``Invocation.close``)."""
    from claimgraph.cli.commands import handler
    from claimgraph.cli.invocation import Invocation
    from claimgraph.cli.output import emit_error
    from claimgraph.errors import ClaimgraphError, disk_full, is_disk_full

    ctx = Invocation(args)
    try:
        return handler(args.command)(ctx, args)
    except ClaimgraphError as err:
        return report_error(err, ctx.json)
    except KeyboardInterrupt:
        emit_error("claimgraph: interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `claimgraph dump | head`: the reader left; not our failure
        silence_stdout()
        return EXIT_FAILED
    except OSError as err:
        if not is_disk_full(err):
            return report_crash(err, ctx, argv)
        return report_error(disk_full(err.filename or _store_dir(ctx)), ctx.json)
    except Exception as err:  # the last line of defence: anything here is a bug
        return report_crash(err, ctx, argv)
    finally:
        ctx.close(ending=ending)


def _store_dir(ctx: Invocation) -> str | None:
    from claimgraph.errors import ClaimgraphError
    try:
        return str(ctx.db_path.parent)
    except ClaimgraphError:
        return None


def silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not raise again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def report_error(err: ClaimgraphError, as_json: bool) -> int:
    """``claimgraph: <what failed> — <what to do>``, or the error dict as JSON."""
    import json

    from claimgraph.cli.output import emit_error
    if as_json:
        emit_error(json.dumps(err.to_dict(), ensure_ascii=False, default=str))
    else:
        hint = f" — {err.hint}" if err.hint else ""
        emit_error(" ".join(f"claimgraph: {err.message}{hint}".split("\n")))
    return EXIT_FAILED


def report_usage(err: UsageError, as_json: bool) -> int:
    from claimgraph.cli.output import emit_error
    from claimgraph.errors import ClaimgraphError
    hint = f"see `{err.prog} --help`"
    if as_json:
        report_error(ClaimgraphError("usage", f"{err.prog}: {err.message}", hint=hint), True)
    else:
        emit_error(err.usage)
        emit_error(f"{err.prog}: error: {err.message} — {hint}")
    return EXIT_USAGE


def report_crash(err: Exception, ctx: Invocation, argv: list[str]) -> int:
    """Append the traceback (with versions and the command) to a crash file; print one line.
    Both are redacted: a traceback quotes the values it failed on, and argv may hold a key."""
    import datetime as _dt
    import traceback

    from claimgraph import STORE_FORMAT
    from claimgraph.cli.output import emit_error
    from claimgraph.logic.redact import redact
    from claimgraph.private import open_private, private_dir
    path = ctx.crash_path()
    stamp = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")
    report = redact(f"--- {stamp} claimgraph {__version__} (format {STORE_FORMAT}), "
                    f"python {sys.version.split()[0]}\nargv: {argv}\n{traceback.format_exc()}")
    try:
        private_dir(path.parent)
        with open_private(path) as crash:
            crash.write(report)
        where = f"details in {path}"
    except OSError:
        where = "the traceback follows\n" + report
    emit_error(redact(f"claimgraph: unexpected error: {type(err).__name__}: {err} — "
                      f"this is a bug; {where}"))
    return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
