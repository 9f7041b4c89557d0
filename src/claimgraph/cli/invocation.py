"""One run of a command (``Invocation``): its effective settings, its store, its write lease.

Settings come from flags, environment and the config file (config.py decides precedence). The
store is opened lazily, so ``config`` and ``version`` work even when the store is broken. Reads
open the store and nothing else; writes go through ``writing()``, which holds ``<db>.lock`` for
the whole command, so two writers never interleave and a reader never waits.

Every command builds one, so it imports only what every command needs: the lease (filelock,
psutil), the store and structlog load when a command first uses them (a read command never
loads the lease, nor structlog unless something logs).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

from claimgraph import location
from claimgraph.cli.scope import USER_SCOPE, current_project
from claimgraph.config import Settings, load_settings
from claimgraph.errors import ClaimgraphError
from claimgraph.logsetup import configure_console_on_first_use
from claimgraph.private import MEMORY

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    import argparse
    from typing import Any, Iterable, Iterator, Mapping
    from claimgraph.core.shell import Shell
    from claimgraph.project import Project

OWNER = "claimgraph-cli"
#: Read-only shells a command about to end left open (``Invocation.close``).
_LEFT_TO_THE_EXIT: list[Any] = []
#: A command-line tool stays quiet unless asked: the log level setting's default is for daemons.
CLI_DEFAULT_LOG_LEVEL = "warning"


class Invocation:
    """One command's view of the world; ``close()`` releases whatever it opened."""

    def __init__(self, args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> None:
        self.args = args
        self.json: bool = bool(getattr(args, "json", False))
        self.environ = os.environ if environ is None else environ
        self._settings: Settings | None = None
        self._shell: Shell | None = None
        self._project: Project | None = None
        self._read_only = False

    @property
    def settings(self) -> Settings:
        """Resolved on first use, so a bad config file fails inside the error boundary."""
        if self._settings is None:
            flags = {"db": getattr(self.args, "db", None),
                     "lease_wait_ms": getattr(self.args, "lease_wait", None)}
            self._settings = load_settings(flags, self.environ, getattr(self.args, "config", None))
            level = self._settings.value("log_level")
            if self._settings.source("log_level") == "default":
                level = CLI_DEFAULT_LOG_LEVEL
            configure_console_on_first_use(level)
        return self._settings

    @property
    def project(self) -> Project:
        """The current directory's project (resolved once: it runs git)."""
        if self._project is None:
            self._project = current_project(self.environ)
        return self._project

    def write_scope(self) -> str:
        """``--scope``, else the current project: where a command's writes land."""
        return getattr(self.args, "scope", None) or self.project.id

    def read_scopes(self) -> list[str]:
        """``--scope`` alone, else the current project then the user scope."""
        given = getattr(self.args, "scope", None)
        return [given] if given else [self.project.id, USER_SCOPE]

    @property
    def db_path(self) -> Path:
        """The store's ``<db>``: its file, or a server store's local stand-in (``location``)."""
        return location.resolve(self.settings.value("db"), self.environ)

    def lasting_db_path(self, command: str) -> Path:
        """``db_path`` for a command whose point is to keep what it writes past its own
        process (``capture``, the daemon); refused for ``:memory:``, a store gone when the
        process ends: the capture would be lost (its spool file removed with it) and a
        daemon would hand the name on as a file in the directory it started in."""
        path = self.db_path
        if str(path) == MEMORY:
            raise ClaimgraphError(
                "store-in-memory", f"`claimgraph {command}` keeps what it writes for later "
                f"runs, and the store {MEMORY!r} lives only as long as this process",
                hint="pass --db (or set CLAIMGRAPH_DB) to a store file")
        return path

    def shell(self) -> Shell:
        """The shell over an EXISTING store, opened read-only: a read never creates, stamps
        or migrates anything, so it works where the user may not write."""
        if self._shell is None:
            self._shell = self._open(read_only=True)
        return self._shell

    def _open(self, read_only: bool) -> Shell:
        from claimgraph import startup
        with startup.more_imports():  # the store's modules live until exit, as the command's
            from claimgraph.core.shell import Shell
            from claimgraph.opening import open_store
        store = open_store(self.db_path, create=not read_only, read_only=read_only)
        self._read_only = read_only
        return Shell(store, half_life_days=self.settings.value("half_life_days"))

    @contextmanager
    def writing(self) -> Iterator[Shell]:
        """Hold the write lease for the whole block; create and seed the store on first write."""
        from claimgraph.core.vocabulary import seed
        from claimgraph.store import leases
        held = leases.write_lease(self.db_path, OWNER, self.settings.value("lease_wait_ms"),
                                 ttl_ms=self.settings.value("lease_ttl_ms"))
        with held:
            if self._shell is not None and self._read_only:
                self.close()  # a read came first: writes need a writable connection
            if self._shell is None:
                self._shell = self._open(read_only=False)
            seed(self._shell)
            yield self._shell

    def close(self, *, ending: bool = False) -> None:
        """Release the store. ``ending``: the process ends at once (``main.quick_exit``), and
        a store opened read-only is left to that exit, which releases its file and locks as a
        crashed reader's are, with nothing to write back (a read-only connection never folds
        the WAL in); closing it would first free SQLite's cache page by page (~3 ms of a
        search at 100k facts, issue 29)."""
        if ending and self._read_only:
            # referenced until the exit: a connection collected before it closes all the same
            _LEFT_TO_THE_EXIT.append(self._shell)
            return
        if self._shell is not None:
            self._shell.store.close()
            self._shell = None

    def crash_path(self) -> Path:
        """Where an unexpected error's traceback goes: beside the store when we know where it
        is, and it has a place that outlives the process (not an in-memory store's)."""
        import tempfile

        from claimgraph.sidecar import Sidecars
        fallback = Path(tempfile.gettempdir()) / "claimgraph.crash.log"
        try:
            beside: Path = Sidecars(self.db_path).crash_log
        except ClaimgraphError:
            return fallback
        return fallback if str(self.db_path) == MEMORY else beside


def log_surfaced(ctx: Invocation, verb: str, fact_ids: Iterable[str]) -> None:
    """Record what a read showed, for ``outcome``; a read that answered is not failed by it."""
    from claimgraph import retrievals
    retrievals.log_read(ctx.db_path, verb, fact_ids, ctx.shell().now())


def describe(settings: Settings) -> list[dict[str, Any]]:
    """Every effective setting with where it came from, for `claimgraph config`."""
    return [{"name": name, "value": value, "source": source}
            for name, (value, source) in settings.items()]
