"""Cached benchmark stores, keyed so a stale one is never reused.

Building a 1M-fact store takes minutes, so benches keep what they build under ``.cache/bench/``
(git-ignored). A cached file is only worth reusing if the same code would build the same bytes,
so its name carries a key made of the store format (``STORE_FORMAT``), a hash of the modules that
decide what a build writes (the schema, the write path, the pure logic it applies), and a hash of
the build function's own source. Change any of them and the next run builds afresh; a change to
a read path (search, the curator's planning) keeps the store, as it should: the bench then
measures the new reader on the same bytes.

A benchmark never writes into the cached file: ``working_copy`` hands out a copy per round.
"""

from __future__ import annotations

import hashlib
import inspect
import shutil
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache" / "bench"
PACKAGE = ROOT / "src" / "claimgraph"
#: What a build writes depends on these (relative to the package), not on the readers.
WRITE_PATH = ("store/sqlite_schema.py", "store/sqlite_db.py", "store/records.py",
              "core/ingest.py", "core/writer.py", "core/batch_writer.py", "core/writes.py",
              "core/entities.py", "core/vocabulary.py", "core/shell.py", "logic")

Builder = Callable[[Path, int], None]


def code_hash(builder: Builder) -> str:
    """12 hex digits over the write-path modules and the builder's source."""
    digest = hashlib.sha256()
    for part in WRITE_PATH:
        path = PACKAGE / part
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            digest.update(file.relative_to(PACKAGE).as_posix().encode())
            digest.update(file.read_bytes())
    digest.update(inspect.getsource(builder).encode())
    return digest.hexdigest()[:12]


def cache_key(builder: Builder) -> str:
    from claimgraph import STORE_FORMAT
    return f"f{STORE_FORMAT}-{code_hash(builder)}"


def cached_store(kind: str, size: int, builder: Builder, rebuild: bool = False) -> Path:
    """The store ``builder(path, size)`` makes, built once per key; stale keys are removed."""
    key = cache_key(builder)
    path = CACHE / f"{kind}-{size}-{key}.db"
    if path.exists() and not rebuild:
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    for stale in CACHE.glob(f"{kind}-{size}-*.db*"):
        _remove(stale)
    partial = path.with_suffix(".building")
    for leftover in CACHE.glob(partial.name + "*"):
        _remove(leftover)
    started = time.perf_counter()
    builder(partial, size)
    _checkpoint(partial)
    partial.rename(path)
    for sidecar in CACHE.glob(partial.name + ".*"):  # the version stamp, the oplog directory
        _remove(sidecar)
    print(f"# built {path.name} in {time.perf_counter() - started:.0f} s", file=sys.stderr,
          flush=True)
    return path


def _remove(path: Path) -> None:
    """A sidecar file, or a sidecar directory such as the store's oplog."""
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()


def _checkpoint(path: Path) -> None:
    """Fold the WAL into the file, so one file is the whole store (copies stay whole)."""
    import sqlite3
    con = sqlite3.connect(path)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.execute("PRAGMA journal_mode=DELETE")
    finally:
        con.close()


def working_copy(source: Path, into: Path) -> Path:
    """A private copy of a cached store, for a run that writes."""
    target = into / "claims.db"
    shutil.copyfile(source, target)
    return target
