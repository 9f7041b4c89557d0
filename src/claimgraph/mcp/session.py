"""What the memory_* tools run against: one store, one project, two shells, one episode.

A ``ServerState`` lives as long as the server. Reads use one shell and never take a lease;
writes use another, each inside the write lease (owner ``claimgraph-mcp``), waiting at most the
configured ``lease_wait_ms`` and then failing with the holder named — an agent is never kept
waiting on a curator for longer than that. The store's modules load with the first read or
write, not with this module. The server runs reads and writes on two threads of their own, so
a read is never queued behind a write waiting for the lease; each shell is only ever touched
by its own thread (SQLite connections are not shared across threads).

Scopes: the project of the server's working directory (the id capture gives it) and ``user``.
An agent asking "what do we know about X" sees those two, never another project's facts.

Facts asserted through the server belong to one episode per agent session: Claude Code tells
its MCP servers the session (``CLAUDE_CODE_SESSION_ID``), so the ref is
``mcp:claude-code:<session>`` and a resumed session keeps adding to it; without a session id
the episode is this server process's own (``mcp:<host>:<pid>@<start ms>``).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from claimgraph import lease

TYPE_CHECKING = False
if TYPE_CHECKING:
    from claimgraph.core import Shell

OWNER = "claimgraph-mcp"
USER_SCOPE = "user"  # core.briefing's; read here without loading the briefing
#: An MCP episode holds what an agent said through a tool call (docs/sync.md, "Trust").
EPISODE_SOURCE_TYPE = "agent-note"


def session_ref(environ: Mapping[str, str], pid: int, started_ms: int) -> str:
    """The episode ref for facts this server asserts; see the module docstring."""
    session = environ.get("CLAUDE_CODE_SESSION_ID", "").strip()
    if session:
        return f"mcp:claude-code:{session}"
    return f"mcp:{hostname()}:{pid}@{started_ms}"


def hostname() -> str:
    """The host's name, as ``socket.gethostname`` gives it (uname's node name on POSIX,
    without loading ``socket``)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket

    return socket.gethostname()


class ServerState:
    """The server's state; every tool gets it first. (A plain class: ``dataclasses`` would
    load ``inspect`` at every server start.)"""

    def __init__(self, db: Path, project: str, episode_ref: str,
                 lease_wait_ms: int = lease.DEFAULT_WAIT_MS,
                 lease_ttl_ms: int = lease.DEFAULT_TTL_MS, half_life_days: float = 90.0,
                 user_scope_writes: bool = False) -> None:
        self.db, self.project, self.episode_ref = db, project, episode_ref
        self.lease_wait_ms, self.lease_ttl_ms = lease_wait_ms, lease_ttl_ms
        self.half_life_days, self.user_scope_writes = half_life_days, user_scope_writes
        self._reader: Shell | None = None
        self._writer: Shell | None = None
        self._episode_id: str | None = None

    def __repr__(self) -> str:
        return (f"ServerState(db={self.db!r}, project={self.project!r}, "
                f"episode_ref={self.episode_ref!r})")

    @property
    def scopes(self) -> tuple[str, ...]:
        """The project first, then the user: the order names are resolved in."""
        return (self.project, USER_SCOPE) if self.project != USER_SCOPE else (USER_SCOPE,)

    @property
    def writable_scopes(self) -> tuple[str, ...]:
        """The project; the user scope too only when the user enabled it (mcp_user_scope)."""
        if self.user_scope_writes and self.project != USER_SCOPE:
            return (self.project, USER_SCOPE)
        return (self.project,)

    def read(self) -> Shell:
        """The read shell over an EXISTING store (opened on first use; a missing store is an
        error until the first assert creates it). Its predicate registry is re-read on each
        call: the server lives for a whole session while other processes register predicates."""
        if self._reader is None:
            from claimgraph.core import Shell
            from claimgraph.opening import open_store

            store = open_store(self.db, read_only=True)  # as the CLI's reads: no lease, no write
            self._reader = Shell(store, half_life_days=self.half_life_days)
        else:
            self._reader.forget_predicates()
        return self._reader

    @contextmanager
    def writing(self) -> Iterator[tuple[Shell, list[str]]]:
        """(the write shell, warnings) inside the write lease; the store is created on first use.
        The write path's modules load with the first write: a session that only reads never
        pays for them."""
        from claimgraph.core import Shell
        from claimgraph.core.vocabulary import seed
        from claimgraph.opening import open_store
        from claimgraph.store import leases

        held = leases.write_lease(self.db, OWNER, self.lease_wait_ms, ttl_ms=self.lease_ttl_ms)
        with held:
            warnings = []
            if held.broken:
                warnings.append(f"took over a stale write lease ({held.broken.get('reason')})")
            if self._writer is None:
                self._writer = Shell(open_store(self.db, create=True),
                                     half_life_days=self.half_life_days)
                seed(self._writer)
            else:
                self._writer.forget_predicates()
            yield self._writer, warnings

    def session_episode(self, sh: Shell) -> dict[str, Any]:
        """This session's episode, opened on the first assert (call it inside ``writing``)."""
        if self._episode_id is not None:
            found = sh.store.get_episode(self._episode_id)
            if found is not None:
                return found
        episode = sh.store.get_episode_by_ref(self.episode_ref)
        if episode is None:
            from claimgraph.core.ingest import open_episode

            episode = open_episode(sh, EPISODE_SOURCE_TYPE, self.episode_ref)
        self._episode_id = episode["id"]
        return episode

    def fetch_evidence(self, name: str) -> str:
        from claimgraph.sidecar import Sidecars

        return Sidecars(self.db).get_evidence(name)

    def log_read(self, verb: str, fact_ids: Iterable[str]) -> None:
        """Append to ``<db>.retrievals``; a read that answered is not failed by its log."""
        from claimgraph import retrievals

        retrievals.log_read(self.db, verb, fact_ids, lease.now_ms())

    def close_reader(self) -> None:
        """Close the read shell (on the thread that opened it)."""
        if self._reader is not None:
            self._reader.store.close()
            self._reader = None

    def close_writer(self) -> None:
        """Close the write shell (on the thread that opened it)."""
        if self._writer is not None:
            self._writer.store.close()
            self._writer = None

    def close(self) -> None:
        self.close_reader()
        self.close_writer()


def default_project(cwd: str, environ: Mapping[str, str]) -> str:
    """The project id capture gives ``cwd``'s sessions (git remote, else root, else path)."""
    from claimgraph.project import resolve_project

    return resolve_project(cwd or os.getcwd(), environ).id
