"""One SQLite connection with the store's guarantees: choke points and re-entrant transactions.

The connection runs in autocommit mode. ``transaction()`` issues BEGIN IMMEDIATE on the
outermost block (a writer waits for the lock up front instead of failing at COMMIT) and inner
blocks join it; ``atomic()`` makes one multi-statement write all-or-nothing even inside a
caller's block (a savepoint). Every statement passes through three choke points that turn a
damaged file into ``corrupt-store`` and lock starvation into ``store-busy``, so no caller ever
sees a raw sqlite3 traceback for an expected failure.

The owner keeps caches; this class tells it when they may be stale: ``on_stale`` after our
rollback or another connection's commit (``PRAGMA data_version``), ``before_commit`` to flush
deferred work into the transaction.

Every outermost transaction that changed a row outside ``marks`` bumps the write counter (the
mark ``records.WRITES_MARK``) just before COMMIT, measured by SQLite's ``total_changes``; mark
writes go through ``uncounted``. A stored SessionStart shortlist is stamped with the counter, so
a reader can tell that nothing it depends on changed since (docs/store.md, "The write counter").

A full disk must not stop a reader: a WAL store with no open connection has no ``-shm``, and
SQLite cannot make one without space. A reader (``snapshot_when_full``) then opens the file
as an immutable snapshot, which needs no ``-shm``; that is exact when no ``-wal`` holds
commits the file lacks (the last connection's close folded it in), and refused otherwise.
"""

from __future__ import annotations

import _thread
import os
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path

from claimgraph.errors import ClaimgraphError, disk_full
from claimgraph.private import create_private_file
from claimgraph.store import sqlite_schema as schema
from claimgraph.store.nesting import reentrant
from claimgraph.store.sqlite_peek import file_uri
from claimgraph.store.records import WRITES_MARK

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from claimgraph.store.sql_dialect import Params, Row
    from types import TracebackType
    from typing import Any, Callable, Iterable, Iterator, Sequence

#: The write counter's bump: a mark row whose value is the count (docs/store.md).
BUMP_WRITES = ("INSERT INTO marks (key, value) VALUES (?, '1') ON CONFLICT (key)"
               " DO UPDATE SET value = CAST(value AS INTEGER) + 1")

BUSY_TIMEOUT_MS = 10_000
#: Reads map the file (SQLite clamps this to its build's ceiling, 2 GB here) instead of copying
#: each page through a read() call into its own cache: a search of a large store touches
#: thousands of scattered pages, and the copy was a quarter of its time at 1M facts. Writes
#: still go through write(); the OS page cache is shared, so other processes see the same data.
MMAP_BYTES = 1 << 32
#: What a connection that only reads needs: waiting out a writer's checkpoint, sorting in
#: memory, the cache and the map. ``WRITE_PRAGMAS`` adds what only writes use (durability,
#: the zeroing of deleted content, the foreign keys' checks): a read command's process runs
#: none of those statements (issue 29).
READ_PRAGMAS = (f"busy_timeout = {BUSY_TIMEOUT_MS}", "temp_store = MEMORY", "cache_size = -32000",
                f"mmap_size = {MMAP_BYTES}")
WRITE_PRAGMAS = ("synchronous = NORMAL", "secure_delete = FAST", "foreign_keys = ON",
                 *READ_PRAGMAS)

#: Store files this process holds open, by (device, inode): [header as first read, holders].
#: POSIX record locks belong to a process and a file, and closing ANY descriptor of that file
#: drops every lock the process holds on it. SQLite's own connections defer such closes; a
#: plain ``open()`` of the file (``check_file`` reading its header) does not. Dropping a
#: writer's locks lets another process take the store for its last user and delete the WAL
#: under it, losing writes already reported as saved. So a file already open here is never
#: opened again outside SQLite: a second connection reuses the header the first one read.
_OPEN_FILES: dict[tuple[int, int], list[Any]] = {}
_OPEN_FILES_LOCK = _thread.allocate_lock()


class SqliteDb:
    """A migrated, configured connection to one store file (or ``":memory:"``)."""

    def __init__(self, path: str | Path, migrations: Sequence[Sequence[str]], *,
                 before_commit: Callable[[], None], on_stale: Callable[[bool], None],
                 read_only: bool = False, snapshot_when_full: bool = False) -> None:
        self.path = str(path)
        self.in_memory = self.path == ":memory:"
        self.read_only = read_only and not self.in_memory
        self.depth = 0
        self._data_version = -1
        self._changes_at = 0  # total_changes when the outermost transaction began
        self._uncounted = 0  # changes since then that were mark writes
        #: An unguarded write (``atomic(guarded=False)``) failed in this transaction: rows it
        #: wrote before failing may remain, so the transaction may only roll back.
        self._doomed = False
        self._before_commit, self._on_stale = before_commit, on_stale
        self._held: tuple[int, int] | None = None
        if not self.in_memory:
            header = self._checked_header()
            if not self.read_only:
                self._check_identity(header)
                _create_private(Path(self.path))
        try:
            self._conn = self._connect(len(migrations), migrations)
        except ClaimgraphError as failure:
            if not (snapshot_when_full and failure.type == "disk-full"
                    and self._snapshot_is_whole()):
                self._release()
                raise
            try:
                self._open_snapshot(len(migrations), failure)
            except BaseException:
                self._release()
                raise
        except BaseException:
            self._release()
            raise
        if self._held is None and not self.in_memory:
            self._hold_created()

    def _hold_created(self) -> None:
        """Count a file SQLite has just created as held (its header needs no check: this
        process made it)."""
        with _OPEN_FILES_LOCK:
            key = _file_key(self.path)
            if key is None:
                return
            held = _OPEN_FILES.setdefault(key, [b"", 0])
            held[1] += 1
            self._held = key

    def _checked_header(self) -> bytes:
        """``check_file``'s header, read from the file only when no connection of this
        process has it open (``_OPEN_FILES``); the file is then counted as held until
        ``close``. A file that does not exist yet is read (nothing can hold it) and counted
        once SQLite has created it, by ``_hold`` after the connection opens."""
        with _OPEN_FILES_LOCK:
            key = _file_key(self.path)
            held = _OPEN_FILES.get(key) if key else None
            if held is not None:
                held[1] += 1
                self._held = key
                return bytes(held[0])
            header = schema.check_file(Path(self.path))
            if key is not None:
                _OPEN_FILES[key] = [header, 1]
                self._held = key
            return header

    def _release(self) -> None:
        """This connection no longer holds its file (see ``_OPEN_FILES``)."""
        with _OPEN_FILES_LOCK:
            key, self._held = self._held, None
            if key is None or (held := _OPEN_FILES.get(key)) is None:
                return
            held[1] -= 1
            if held[1] <= 0:
                del _OPEN_FILES[key]

    def _connect(self, target: int, migrations: Sequence[Sequence[str]]) -> sqlite3.Connection:
        """Writers migrate; readers only check the version (a read never changes the file).

        A read-only open of a WAL store needs its ``-shm`` file; when the directory is not
        writable and nobody has the store open, that file cannot be made, so the reader falls
        back to ``immutable=1``: nothing can be writing a store whose directory is read-only.
        """
        attempts = (["mode=ro"], ["mode=ro", "immutable=1"]) if self.read_only else ([],)
        for n, options in enumerate(attempts):
            conn = self._open(options)
            try:
                self._configure(conn)
                if self.read_only:
                    schema.require_current(conn, self.path, target)
                else:
                    schema.migrate(conn, self.path, migrations)
                return conn
            except sqlite3.DatabaseError as error:
                conn.close()
                if n + 1 < len(attempts) and _failure_kind(error) in ("cantopen", "readonly"):
                    continue
                raise self._translate(error) from error
            except BaseException:
                conn.close()
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _open(self, options: list[str]) -> sqlite3.Connection:
        """A read-only connection may pass from thread to thread (the viewer lends the few it
        keeps open to whichever thread builds a page, one at a time; Python's sqlite3 is built
        serialized); a writer's stays on the thread that opened it."""
        target = self.path
        if options:
            target = f"{file_uri(self.path)}?{'&'.join(options)}"
        try:
            return sqlite3.connect(target, isolation_level=None, cached_statements=512,
                                   uri=bool(options), check_same_thread=not self.read_only)
        except sqlite3.DatabaseError as error:
            raise self._translate(error) from error

    def _snapshot_is_whole(self) -> bool:
        wal = Path(f"{self.path}-wal")
        return not wal.exists() or wal.stat().st_size == 0

    def _open_snapshot(self, version: int, failure: Exception) -> None:
        """The file as it is, read-only and lock-free (module docstring)."""
        self._conn = sqlite3.connect(_uri(self.path, "mode=ro&immutable=1"), uri=True,
                                     isolation_level=None, cached_statements=512,
                                     check_same_thread=False)
        try:
            if schema.schema_version(self._conn, self.path) != version:
                raise failure
        except BaseException:
            self._conn.close()
            raise
        self.read_only = True
        import structlog  # only here: the SessionStart hook opens stores and must stay light
        structlog.get_logger("claimgraph.store").warning(
            "store.read-only-snapshot", path=self.path, reason=str(failure))

    def _check_identity(self, header: bytes) -> None:
        """Another program's database must be refused before anything changes it (switching
        it to WAL, creating our files beside it): so an existing file is first read through
        a read-only connection, unless its header already says it is ours.

        That connection is ``immutable`` (no locks, no ``-shm``, so nothing is created beside
        a foreign file), so it can catch a page half-written by another process's checkpoint
        (a new store being created by several captures at once) and call the file malformed:
        such a read is tried again before the file is called corrupt."""
        if not header or schema.stamped_ours(header):  # no file yet, an empty one, or ours
            return
        for attempt in range(IDENTITY_TRIES):
            try:
                self._read_identity()
                return
            except sqlite3.DatabaseError as error:
                if _failure_kind(error) != "corrupt" or attempt + 1 == IDENTITY_TRIES:
                    raise self._translate(error) from error
                time.sleep(IDENTITY_PAUSE_S)

    def _read_identity(self) -> None:
        reader = sqlite3.connect(_uri(self.path, "mode=ro&immutable=1"), uri=True)
        try:
            schema.schema_version(reader, self.path)
        finally:
            reader.close()

    def _configure(self, conn: sqlite3.Connection) -> None:
        """WAL lets readers run beside the writer; NORMAL is durable enough under WAL. Setting
        the journal mode is a write, so a reader leaves it as the writer stored it.

        ``secure_delete = FAST`` whatever the build's default (Debian's is ON, most others OFF):
        deleted content is zeroed where that costs no extra writes, but freed overflow pages
        are not, so replacing the oplog's outbox after a big batch (megabytes) does not write
        megabytes of zeros into the WAL (41 ms of the next capture's COMMIT after a 10k-fact
        batch; 1 ms with FAST). A purge turns it fully on and VACUUMs (sqlite_purge), so no
        freed page outlives it."""
        if not self.in_memory and not self.read_only:
            _switch_to_wal(conn)
        for pragma in READ_PRAGMAS if self.read_only else WRITE_PRAGMAS:
            conn.execute(f"PRAGMA {pragma}")

    # --- choke points ----------------------------------------------------------------
    def rows(self, sql: str, params: Params = ()) -> list[Row]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.IntegrityError:
            raise
        except sqlite3.DatabaseError as error:
            raise self._translate(error) from error

    def ensure_function(self, name: str, args: int, function: Any) -> None:
        """SQL ``name`` as SQLite's own where its build has it (the math functions are a
        compile-time option), else ``function`` registered on this connection."""
        try:
            self._conn.execute(f"SELECT {name}({', '.join(['1'] * args)})")
        except sqlite3.OperationalError:
            self._conn.create_function(name, args, function, deterministic=True)

    def stream(self, sql: str, params: Params = (), batch: int = 2000) -> Iterator[Row]:
        """``rows`` a batch at a time, for a reader that keeps only some of them."""
        try:
            cursor = self._conn.execute(sql, params)
            while found := cursor.fetchmany(batch):
                yield from found
        except sqlite3.IntegrityError:
            raise
        except sqlite3.DatabaseError as error:
            raise self._translate(error) from error

    def one(self, sql: str, params: Params = ()) -> Row | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def run(self, sql: str, params: Params = ()) -> int:
        """Execute one write; return the number of rows it changed."""
        try:
            return self._conn.execute(sql, params).rowcount
        except sqlite3.IntegrityError:
            raise
        except sqlite3.DatabaseError as error:
            raise self._translate(error) from error

    def many(self, sql: str, rows: Iterable[Params]) -> None:
        try:
            self._conn.executemany(sql, rows)
        except sqlite3.IntegrityError:
            raise
        except sqlite3.DatabaseError as error:
            raise self._translate(error) from error

    def _translate(self, error: sqlite3.DatabaseError) -> Exception:
        """Expected failures become ClaimgraphErrors; programming errors stay as they are."""
        kind = _failure_kind(error)
        if kind == "full" or (kind == "ioerr" and _disk_is_full(self.path)):
            return disk_full(self.path, "SQLite could not grow the store or its journal")
        if kind == "ioerr":
            return ClaimgraphError(
                "store-io-error", f"cannot read or write the store {self.path}: {error}",
                hint="check the disk; `claimgraph doctor` checks the store", path=self.path)
        if kind == "corrupt":
            return schema.corrupt(self.path, str(error))
        if kind == "cantopen":
            return ClaimgraphError(
                "store-unopenable", f"cannot open the store {self.path}: {error}",
                hint="check that the directory exists and is writable, or choose another --db",
                path=self.path)
        if kind == "readonly":
            return read_only_store(self.path, str(error))
        if kind == "busy":
            return ClaimgraphError(
                "store-busy", f"the store {self.path} stayed locked by another writer",
                hint="another claimgraph process is writing; try again in a moment",
                path=self.path)
        return error

    # --- transactions ----------------------------------------------------------------
    @reentrant
    def transaction(self) -> Iterator[None]:
        """Outermost: BEGIN IMMEDIATE .. COMMIT, ROLLBACK on any exception. Inner: join."""
        self.run("BEGIN IMMEDIATE")
        self.depth, self._doomed = 1, False
        self._changes_at, self._uncounted = self._conn.total_changes, 0
        try:
            self.refresh(force=True)
            yield
        except BaseException:
            self.depth = 0
            self._abort()
            raise
        self.depth = 0
        self._commit()

    def _commit(self) -> None:
        try:
            if self._doomed:
                raise ClaimgraphError(
                    "transaction-doomed", "a write failed part way through this transaction; "
                    "it was rolled back and nothing of it was stored",
                    hint="the error that write raised says why; retry once it is fixed")
            self._before_commit()
            if self._conn.total_changes - self._changes_at > self._uncounted:
                self.run(BUMP_WRITES, (WRITES_MARK,))
            self.run("COMMIT")
        except BaseException:
            self._abort()
            raise

    def _abort(self) -> None:
        self._on_stale(True)
        if self._conn.in_transaction:
            self._conn.execute("ROLLBACK")

    def uncounted(self, sql: str, params: Params = ()) -> int:
        """A write inside a transaction that does not bump the write counter (mark writes:
        bookkeeping no read of facts depends on, and the stored shortlist itself)."""
        before = self._conn.total_changes
        try:
            return self.run(sql, params)
        finally:
            self._uncounted += self._conn.total_changes - before

    def reading(self) -> _Reading:
        """One consistent snapshot for several reads (a deferred transaction that writes
        nothing); inside a transaction, that transaction's view."""
        return _Reading(self)

    def _end_reading(self) -> None:
        """The end of ``reading``'s own transaction."""
        self.depth = 0
        if self._conn.in_transaction:
            self._conn.execute("COMMIT")

    @contextmanager
    def atomic(self, can_fail_midway: bool = True, guarded: bool = True) -> Iterator[None]:
        """A write that is all-or-nothing even inside a caller's block.

        Outside a block it is its own transaction. Inside one, a savepoint guards writes whose
        later statements can fail after earlier ones succeeded; a write that can only fail on
        its first statement needs none (and savepoints are not free: they flush FTS5).

        ``guarded`` False: the caller's whole transaction is the unit instead. No savepoint (a
        batch ingest writes its facts in a score of flushes, and each savepoint copied every
        page the transaction had written and touched again: ~6% of a 20k batch's CPU); a
        failure midway dooms the transaction, which can then only roll back (its commit
        refuses, ``transaction-doomed``), so what the write left half done is never stored.
        """
        if self.depth and not can_fail_midway:
            yield
        elif not self.depth:
            with self.transaction():
                yield
        elif not guarded:
            try:
                yield
            except BaseException:
                self._doomed = True
                raise
        else:
            with self._savepoint():
                yield

    @contextmanager
    def _savepoint(self) -> Iterator[None]:
        self.run("SAVEPOINT store_write")
        try:
            yield
        except BaseException:
            self._on_stale(False)
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK TO store_write")
                self._conn.execute("RELEASE store_write")
            raise
        self.run("RELEASE store_write")

    def refresh(self, force: bool = False) -> None:
        """Signal staleness when another connection has committed since we last looked.

        Inside our own write transaction nobody else can commit, so one look at BEGIN suffices.
        """
        if self.in_memory or (self.depth and not force):
            return
        version = self.value("PRAGMA data_version")
        if version != self._data_version:
            self._on_stale(False)
            self._data_version = version

    def pragma(self, name: str) -> Any:
        """Read one pragma (tests and diagnostics)."""
        return self.value(f"PRAGMA {name}")

    def value(self, sql: str, params: Params = ()) -> Any:
        """The first column of the first row (None when there is no row)."""
        found = self.one(sql, params)
        return None if found is None else found[0]

    def close(self) -> None:
        """Close the connection; the last one out folds the WAL back into the file."""
        self._conn.close()
        self._release()


class _Reading:
    """``SqliteDb.reading``'s block. A class, not a ``contextlib`` generator: every search
    enters it, and a read need not load ``contextlib`` (``claimgraph.deferred``)."""

    def __init__(self, db: SqliteDb) -> None:
        self.db = db
        self.own = False  # whether this block began the transaction (and so ends it)

    def __enter__(self) -> None:
        db = self.db
        if db.depth:
            return
        db.run("BEGIN")
        db.depth = 1
        self.own = True
        try:
            db.refresh(force=True)
        except BaseException:
            db._end_reading()
            raise

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.own:
            self.db._end_reading()


def _file_key(path: str) -> tuple[int, int] | None:
    """(device, inode) of a store file, None when there is none yet (a stat opens nothing)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _create_private(path: Path) -> None:
    """A new store file starts 0600; SQLite gives its WAL and SHM the same mode."""
    try:
        create_private_file(path)
    except OSError:
        pass  # SQLite reports what is wrong with the place, in its own words


_KIND_BY_CODE = {11: "corrupt", 26: "corrupt", 5: "busy", 6: "busy", 14: "cantopen",
                 13: "full", 10: "ioerr", 8: "readonly"}
#: Below this much free space, an I/O error is the disk being full.
FULL_BELOW_BYTES = 256 * 1024
_KIND_BY_WORDING = (("corrupt", ("malformed", "not a database")), ("busy", ("locked", "busy")),
                    ("cantopen", ("unable to open",)), ("full", ("database or disk is full",)),
                    ("ioerr", ("disk I/O error",)), ("readonly", ("readonly database",)))


def _uri(path: str, query: str) -> str:
    return f"{file_uri(path)}?{query}"


#: The bytes a file's URI keeps as they are (``urllib.parse.quote_from_bytes``'s, with "/").
def _disk_is_full(path: str) -> bool:
    try:
        import shutil  # only when a write failed: not on every open
        return shutil.disk_usage(Path(path).absolute().parent).free < FULL_BELOW_BYTES
    except OSError:
        return False


def read_only_store(path: str, why: str) -> ClaimgraphError:
    """A write SQLite refused: name the file and the permission it lacks, and the fix."""
    where = Path(path).parent
    if not os.access(where, os.W_OK):
        lacking = f"permission denied (no write permission in {where})"
    elif not os.access(path, os.W_OK):
        lacking = "permission denied (the file is read-only)"
    else:
        lacking = f"the database is read-only ({why})"
    return ClaimgraphError(
        "store-read-only", f"cannot write the store {path}: {lacking}",
        hint=f"make {where} and the store's files writable for this user, or point --db "
             "(or CLAIMGRAPH_DB) at a writable store; reads still work", path=path)


#: A lock-free identity read that met a page mid-write is tried again this many times.
IDENTITY_TRIES = 5
IDENTITY_PAUSE_S = 0.02
#: How long, and how often, a new store's switch to WAL is retried while another process
#: switches it or reads it (the switch fails at once instead of waiting on the busy handler).
WAL_SWITCH_PAUSE_S = 0.01


def _switch_to_wal(conn: sqlite3.Connection) -> None:
    """``PRAGMA journal_mode = WAL``, waiting out another connection that holds the file.

    A new store starts in rollback mode; switching needs the file to itself for a moment, and
    SQLite answers "database is locked" at once, without its busy handler, when another
    process is reading it or switching it too: when several hooks opened a fresh store at
    once, some of them failed (a capture lost, counted against its session). A store already
    in WAL mode answers at once."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if _failure_kind(error) != "busy" or time.monotonic() >= deadline:
                raise
            time.sleep(WAL_SWITCH_PAUSE_S)


def _failure_kind(error: sqlite3.DatabaseError) -> str | None:
    """Classify by SQLite's primary result code; Python 3.10 lacks codes, so read the wording."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return _KIND_BY_CODE.get(code & 0xFF)
    text = str(error)
    return next((kind for kind, words in _KIND_BY_WORDING if any(w in text for w in words)), None)
