"""One psycopg 3 connection with the store's guarantees: choke points and re-entrant transactions.

The PostgreSQL twin of ``sqlite_db``. The connection runs in autocommit mode; ``transaction()``
opens one transaction on the outermost block and inner blocks join it; ``atomic()`` makes one
multi-statement write all-or-nothing inside a caller's block (a savepoint). Every statement
passes through ``rows``/``run``, which turn a lost server into ``store-unreachable`` and the
server's refusals into ClaimgraphErrors, so no caller sees a raw driver traceback for an
expected failure. psycopg is imported here and only here (and only for a server store).

The write counter (docs/store.md): a transaction in which an INSERT, UPDATE or DELETE outside
``marks`` changed a row bumps the mark ``records.WRITES_MARK`` just before it commits; such a
statement outside any transaction gets a transaction of its own, so its bump commits with it.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, Sequence

import psycopg
from psycopg import errors as pg_errors

from claimgraph.errors import ClaimgraphError
from claimgraph.store.nesting import reentrant
from claimgraph.store.records import WRITES_MARK

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from claimgraph.store.sql_dialect import Params, Row

CONNECT_TIMEOUT_S = 10
IntegrityError = psycopg.IntegrityError
WRITE_VERBS = ("INSERT", "UPDATE", "DELETE", "MERGE")
#: The counter's bump; the row lock it takes is held only for the commit that follows.
BUMP_WRITES = ("INSERT INTO marks (key, value) VALUES (%s, '1') ON CONFLICT (key)"
               " DO UPDATE SET value = (marks.value::bigint + 1)::text")


def _is_write(sql: str) -> bool:
    return sql.lstrip()[:6].upper().startswith(WRITE_VERBS)


class PostgresDb:
    """A configured connection to one server store."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.depth = 0
        try:
            self._conn = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
        except psycopg.Error as error:
            raise unreachable(url, error) from None
        self._tx: Any = None
        self._changed = False  # a counted write happened in the open transaction

    # --- choke points ----------------------------------------------------------------
    def rows(self, sql: str, params: Params = ()) -> list[Row]:
        cursor = self._execute(sql, params)
        return cursor.fetchall() if cursor.description else []

    def one(self, sql: str, params: Params = ()) -> Row | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def run(self, sql: str, params: Params = (), counted: bool = True) -> int:
        """Execute one write; return the number of rows it changed. ``counted=False``: a mark
        write, which never bumps the write counter."""
        if counted and not self.depth and _is_write(sql):
            with self.transaction():
                return self.run(sql, params)
        changed: int = self._execute(sql, params).rowcount
        if counted and changed and changed > 0 and _is_write(sql):
            self._changed = True
        return changed

    def many(self, sql: str, rows: Sequence[Params]) -> None:
        rows = list(rows)
        if not rows:
            return
        if not self.depth:
            with self.transaction():
                return self.many(sql, rows)
        try:
            with self._conn.cursor() as cursor:
                cursor.executemany(sql, rows)
                self._changed = self._changed or cursor.rowcount != 0
        except psycopg.IntegrityError:
            raise
        except psycopg.Error as error:
            raise self._translate(error) from error

    def _execute(self, sql: str, params: Params) -> Any:
        try:
            return self._conn.execute(sql, params or None)
        except psycopg.IntegrityError:
            raise
        except psycopg.Error as error:
            raise self._translate(error) from error

    def _translate(self, error: psycopg.Error) -> Exception:
        if isinstance(error, (psycopg.OperationalError, psycopg.InterfaceError)):
            return unreachable(self.url, error)
        if isinstance(error, pg_errors.InsufficientPrivilege):
            return ClaimgraphError(
                "store-read-only", f"the server refused a write to {redact_url(self.url)}: "
                f"{_first_line(error)}", hint="ask the database owner for write access, or "
                "point --db at a store you may write", url=redact_url(self.url))
        if isinstance(error, pg_errors.DiskFull):
            return ClaimgraphError("disk-full", "the database server's disk is full",
                                   hint="free space on the server and retry")
        return error

    # --- transactions ----------------------------------------------------------------
    @reentrant
    def transaction(self) -> Iterator[None]:
        """Outermost: one server transaction, rolled back on any exception. Inner: join."""
        try:
            tx = self._conn.transaction()
            tx.__enter__()
        except psycopg.Error as error:
            raise self._translate(error) from error
        self.depth, self._changed = 1, False
        try:
            yield
            if self._changed:
                self._execute(BUMP_WRITES, (WRITES_MARK,))
        except BaseException as error:
            self.depth = 0
            _quietly_exit(tx, error)
            raise
        self.depth = 0
        try:
            tx.__exit__(None, None, None)
        except psycopg.IntegrityError:
            raise
        except psycopg.Error as error:
            raise self._translate(error) from error

    def uncounted(self, sql: str, params: Params = ()) -> int:
        """A write that does not bump the write counter (mark writes)."""
        return self.run(sql, params, counted=False)

    @contextmanager
    def atomic(self, can_fail_midway: bool = True, guarded: bool = True) -> Iterator[None]:
        """All-or-nothing even inside a caller's block (a savepoint there, whatever
        ``can_fail_midway`` and ``guarded`` say: any failed statement aborts a PostgreSQL
        transaction, and the savepoint keeps the caller's block usable)."""
        if not self.depth:
            with self.transaction():
                yield
            return
        with self._conn.transaction():
            yield

    def close(self) -> None:
        try:
            self._conn.close()
        except psycopg.Error:
            pass


def _quietly_exit(tx: Any, error: BaseException) -> None:
    """Roll back; a connection that died meanwhile has nothing left to roll back."""
    try:
        tx.__exit__(type(error), error, error.__traceback__)
    except psycopg.Error:
        pass


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or ["?"])[0]


def redact_url(url: str) -> str:
    """A server URL without its password, for messages and logs."""
    from claimgraph.location import redact_password
    return redact_password(url)


def unreachable(url: str, error: BaseException) -> ClaimgraphError:
    return ClaimgraphError(
        "store-unreachable", f"cannot reach the database server {redact_url(url)}: "
        f"{_first_line(error)}", hint="check that the server is running and the URL is right; "
        "hooks keep spooling meanwhile and the daemon's sweep captures later",
        url=redact_url(url))
