"""This store's own log: numbering effects and appending them, crash-safe.

The database is the truth and the log follows it. Inside the committing transaction the
effects are numbered (dense ``seq``, one ``hlc`` for the transaction) under a file lock on
the log, and stored once in the store's ``oplog:outbox`` mark, so they commit with the data.
After COMMIT their lines are derived from what the outbox holds, appended to
``<writer>.jsonl`` in one write, and the lock is released. A process that dies between the
two leaves them in the outbox; the next transaction of any process finds them missing from
the file, derives the same lines and appends them first. A rolled-back transaction leaves
nothing: its numbers were never written anywhere.

The outbox keeps each inserted fact as a row of its values (``logic.oplog.fact_row``'s
order), not as its line: a batch's line per fact was otherwise encoded, then stored again as
an escaped JSON string inside the mark (17.7 MB for 20k facts where the rows take about a
third). Every other effect is kept as its whole line. Both give the very text ``encode``
gives (``logic.oplog.outbox_lines``); an outbox an older claimgraph left (``lines``) is read
as before.

An append that fails (a full disk) never fails the write it records (docs/sync.md): it is
reported on stderr, and the outbox keeps the lines for the next transaction to append.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from filelock import FileLock, Timeout

from claimgraph.errors import ClaimgraphError
from claimgraph.logic import oplog as L
from claimgraph.oplog import files as F
from claimgraph.private import FILE_MODE, NOFOLLOW, open_private, private_dir
from claimgraph.store.base import Store

OUTBOX = "oplog:outbox"
#: A small mark beside the outbox: its writer and last seq, so the common case (the file has
#: everything) is answered without decoding the outbox itself.
OUTBOX_HEAD = "oplog:outbox-head"
LOCK_TIMEOUT_S = 30.0
#: The outbox's ``lines``, read only by a claimgraph older than its ``effects``, which knows no
#: other key: that reader skipped this outbox silently (an empty ``lines``) and went on
#: numbering from its file, so the effects a crash left in it never reached the log. A JSON
#: object where it expects a line's text makes its ``json.loads`` raise instead: its writes
#: fail loudly (a TypeError) until a newer claimgraph appends them (docs/sync.md, "The log").
#: Ours reads ``effects`` whenever it is there.
OLDER_READER_STOP = [{"outbox": "left by a newer claimgraph: upgrade to append its effects"}]


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


class OwnLog:
    """Seq and hlc allocation and the append, under one lock on ``<writer>.jsonl.lock``."""

    def __init__(self, directory: Path, writer: str | None = None,
                 clock: Callable[[], int] = wall_ms) -> None:
        """``writer`` None: resolved (and persisted) at the first write, so opening a store
        creates no file."""
        self.directory, self.clock = directory, clock
        self._writer = writer
        self._lock_file: FileLock | None = None
        self._size = -1
        self._seq = 0
        self._hlc = 0
        self._floor: tuple[tuple[int, ...], int] = ((), 0)
        #: The staged transaction's outbox items, its first seq and its hlc, until appended.
        self._staged: tuple[list[Any], int, int] | None = None

    @property
    def writer(self) -> str:
        if self._writer is None:
            self._writer = F.writer_id(self.directory)
        return self._writer

    @property
    def path(self) -> Path:
        return F.log_path(self.directory, self.writer)

    @property
    def _lock(self) -> FileLock:
        if self._lock_file is None:
            private_dir(self.directory)
            self._lock_file = FileLock(f"{self.path}.lock", timeout=LOCK_TIMEOUT_S,
                                       mode=FILE_MODE)
        return self._lock_file

    # --- position -------------------------------------------------------------------------
    def _sync_position(self) -> None:
        """Resume above the highest seq in the file; re-read it if it changed behind us."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            size = 0
        if size == self._size:
            return
        last = F.last_line(self.path) or {}
        self._seq, self._hlc, self._size = last.get("seq", 0), last.get("hlc", 0), size

    def position(self) -> int:
        """The highest seq written so far (reads the file)."""
        self._size = -1
        self._sync_position()
        return self._seq

    def _clock_floor(self) -> int:
        """The highest peer clock a sync has seen (applied.json's ``clock``), re-read on change.

        A change is told by the file's inode as well as its time and size: sync replaces the
        file whole (a new inode each time), and a file time moves only once per kernel tick,
        so two syncs within one tick would otherwise leave a stale floor here, and our next
        line could sort before a peer's line it follows."""
        path = self.directory / F.STATE_FILE
        try:
            info = path.stat()
        except FileNotFoundError:
            return 0
        stamp = (info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_size)
        if stamp != self._floor[0]:
            try:
                self._floor = (stamp, int(F.read_state(self.directory).get("clock") or 0))
            except Exception:  # a damaged state is sync's to report; the clock stays ours
                self._floor = (stamp, 0)
        return self._floor[1]

    # --- the two-phase append ---------------------------------------------------------------
    def stage(self, store: Store, effects: Iterable[dict[str, Any] | list[Any]]) -> None:
        """Inside the store's transaction: take the lock, append what a crashed process left in
        the outbox, number ``effects`` and put them in the outbox (committing with the data):
        an inserted fact as its row (``oplog.baseline.insert_effect``), any other as its line.

        A lock that stays taken refuses the write (``store-busy``, which rolls the transaction
        back): data committed without its lines would be missing from every replica for good."""
        effects = list(effects)
        self._acquire()
        try:
            self._sync_position()
            self._recover(store)
            hlc = L.next_hlc(self.clock(), self._hlc, self._clock_floor())
            first, writer = self._seq + 1, self.writer
            items = L.outbox_items(effects, writer, first, hlc)
            store.set_mark(OUTBOX, {"writer": writer, "first": first, "hlc": hlc,
                                    "effects": items, "lines": OLDER_READER_STOP})
            store.set_mark(OUTBOX_HEAD, {"writer": writer, "last": self._seq + len(items)})
            self._staged = (items, first, hlc)
        except BaseException:
            self._lock.release()
            raise

    def commit_staged(self) -> None:
        """After COMMIT: append the staged effects' lines and let go of the lock."""
        staged, self._staged = self._staged, None
        if staged is None:
            return
        try:
            items, first, hlc = staged
            self._append(L.outbox_lines(items, self.writer, first, hlc))
        except OSError as error:
            self._size = -1
            _warn(f"could not append to {self.path} ({error.strerror or error}); the lines wait "
                  "in the store and are appended by its next write")
        finally:
            self._lock.release()

    def abandon_staged(self) -> None:
        """The transaction rolled back: its numbers were never written; forget them."""
        if self._staged is None:
            return
        self._staged = None
        self._size = -1
        self._lock.release()

    def flush_outbox(self, store: Store) -> None:
        """Append what a process that died after COMMIT left in the outbox (sync calls this
        before it reads the logs, so a replay never misses our own last write)."""
        self._acquire()
        try:
            self._sync_position()
            self._recover(store)
        finally:
            self._lock.release()

    def _acquire(self) -> None:
        """The log's lock, or ``store-busy`` when another process keeps it past the timeout."""
        private_dir(self.directory)
        try:
            self._lock.acquire()
        except Timeout:
            raise ClaimgraphError(
                "store-busy", f"the operation log {self.path} stayed locked for "
                f"{self._lock.timeout:g} s; nothing was written",
                hint="another claimgraph process is writing to this store; try again") from None

    def _recover(self, store: Store) -> None:
        head = store.get_mark(OUTBOX_HEAD) or {}
        if head.get("writer") != self.writer or int(head.get("last") or 0) <= self._seq:
            return
        box = store.get_mark(OUTBOX) or {}
        if box.get("writer") != self.writer:
            return
        if "effects" in box:
            missing = L.outbox_lines(box["effects"], self.writer, int(box["first"]),
                                     int(box["hlc"]), above=self._seq)
        else:  # an outbox an older claimgraph left: whole lines
            missing = [text for text in box.get("lines") or ()
                       if (L.parse(text) or {}).get("seq", 0) > self._seq]
        if missing:
            self._append(missing)

    def _append(self, lines: list[str]) -> None:
        """One write of ``lines``; after a torn one (a process killed mid-write), on a line of
        its own: glued to the fragment, the first line would be garbled, a seq lost for good."""
        torn = _ends_torn(self.path)
        data = bytearray(b"\n" if torn else b"")  # the UTF-8 only: one str of every line
        for line in lines:  # took 4 bytes a character after one emoji, and was copied twice
            data += line.encode("utf-8")  # (a long capture's peak, issue 29)
            data += b"\n"
        with open_private(self.path, "ab") as out:
            out.write(data)
            out.flush()  # no fsync: a crash is covered by the outbox, as SQLite's NORMAL sync is
        last = L.parse(lines[-1]) or {}
        self._seq, self._hlc = last.get("seq", self._seq), last.get("hlc", self._hlc)
        self._size = self.path.stat().st_size


def _ends_torn(path: Path) -> bool:
    """The file ends in a line without its newline (a write cut short)."""
    try:
        with os.fdopen(os.open(path, os.O_RDONLY | NOFOLLOW), "rb") as handle:
            if handle.seek(0, 2) == 0:
                return False
            handle.seek(-1, 2)
            return handle.read(1) != b"\n"
    except FileNotFoundError:
        return False


def _warn(message: str) -> None:
    print(f"claimgraph: oplog: {message}", file=sys.stderr)
