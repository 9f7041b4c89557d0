"""``claimgraph``: the parser, the dispatch table and the error boundary.

Commands live one group per module; each module adds its parsers and exports ``COMMANDS``, a
table from command name to ``handler(ctx, args) -> int``. This module owns the exit codes:
0 ok, 1 the command failed (a one-line message and what to do), 2 usage, 130 interrupted. An
unexpected exception is a bug: one line on stderr, the traceback in a crash file beside the db.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import sys
import traceback
from typing import Callable, NoReturn, Sequence

from claimgraph import STORE_FORMAT, __version__
from claimgraph.cli import demo, entity, evidence, facts, info, init, portable, predicates, search
from claimgraph.cli import capture
from claimgraph.cli import hooks
from claimgraph.cli import audit
from claimgraph.cli import daemon as daemon_cli
from claimgraph.cli import memory_context
from claimgraph.cli import memory
from claimgraph.cli import doctor as doctor_cli
from claimgraph.cli import forget
from claimgraph.cli import sync as sync_cli
from claimgraph.cli import migrate as migrate_cli
from claimgraph.cli import logs as logs_cli, status as status_cli
from claimgraph.cli import serve as serve_cli
from claimgraph.cli.context import Context
from claimgraph.cli.output import emit_error
from claimgraph.errors import ClaimgraphError, disk_full, is_disk_full
from claimgraph.private import open_private, private_dir, restrict_umask

GROUPS = (init, facts, search, entity, predicates, evidence, portable, info, demo, capture,
          hooks, audit, memory_context, logs_cli, status_cli, daemon_cli, memory, doctor_cli,
          forget, serve_cli, sync_cli, migrate_cli)
Handler = Callable[[Context, argparse.Namespace], int]
DISPATCH: dict[str, Handler] = {name: run for group in GROUPS for name, run in group.COMMANDS.items()}
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """argparse's complaint, carried out of the parser so the boundary decides how to print it."""

    def __init__(self, prog: str, usage: str, message: str) -> None:
        super().__init__(message)
        self.prog, self.usage, self.message = prog, usage, message


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(self.prog, self.format_usage().strip(), message)


def milliseconds(text: str) -> int:
    """A wait in ms: a whole number, zero (do not wait) or more."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of milliseconds ≥ 0")
    return int(text)


def global_flags(suppress: bool) -> argparse.ArgumentParser:
    """The flags every command accepts, before or after its name.

    Sub-parsers use SUPPRESS defaults so a flag given before the command is not overwritten.
    """
    default = {"default": argparse.SUPPRESS} if suppress else {}
    flags = Parser(add_help=False)
    flags.add_argument("--db", metavar="PATH", help="the store (default: $CLAIMGRAPH_DB, "
                       "else $XDG_DATA_HOME/claimgraph/claims.db)", **default)
    flags.add_argument("--json", action="store_true", help="machine-readable output; "
                       "errors as JSON on stderr", **default)
    flags.add_argument("--lease-wait", metavar="MS", type=milliseconds, help="how long a write waits "
                       "for another writer's lease (default 5000)", **default)
    flags.add_argument("--config", metavar="FILE", help="config file (default: "
                       "$XDG_CONFIG_HOME/claimgraph/config.toml)", **default)
    return flags


def build_parser() -> Parser:
    parser = Parser(prog="claimgraph", parents=[global_flags(suppress=False)],
                    description="A local-first memory for coding agents: facts with history, "
                                "provenance and conflicts.",
                    epilog="New here? Run `claimgraph demo`. Exit codes: 0 ok, 1 the command "
                           "failed, 2 usage error.")
    parser.add_argument("--version", action="version", version=f"claimgraph {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                parser_class=Parser)
    common = global_flags(suppress=True)
    for group in GROUPS:
        group.add_parsers(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    restrict_umask()  # whatever this command (or a child it starts) creates is private
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
    except UsageError as err:
        return report_usage(err, "--json" in argv)
    except SystemExit as done:  # --help and --version exit through argparse
        return int(done.code or 0)
    ctx = Context(args)
    try:
        return DISPATCH[args.command](ctx, args)
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
        ctx.close()


def _store_dir(ctx: Context) -> str | None:
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
    if as_json:
        emit_error(json.dumps(err.to_dict(), ensure_ascii=False, default=str))
    else:
        hint = f" — {err.hint}" if err.hint else ""
        emit_error(" ".join(f"claimgraph: {err.message}{hint}".split("\n")))
    return EXIT_FAILED


def report_usage(err: UsageError, as_json: bool) -> int:
    hint = f"see `{err.prog} --help`"
    if as_json:
        report_error(ClaimgraphError("usage", f"{err.prog}: {err.message}", hint=hint), True)
    else:
        emit_error(err.usage)
        emit_error(f"{err.prog}: error: {err.message} — {hint}")
    return EXIT_USAGE


def report_crash(err: Exception, ctx: Context, argv: list[str]) -> int:
    """Append the traceback (with versions and the command) to a crash file; print one line.
    Both are redacted: a traceback quotes the values it failed on, and argv may hold a key."""
    from claimgraph.logic.redact import redact
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
