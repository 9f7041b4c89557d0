"""Whether a SQLite store holds any fact in some scopes, asked with ``sqlite3`` alone.

The SessionStart hook's commonest empty answer -- a project the store has never heard of, a
store ``claimgraph init`` just made -- needs none of the store's modules, the ranking or the
rendering, whose imports are most of the hook's time on that path (docs/internals.md,
"Start-up"). So the hook asks this first, on a read-only connection, and stops at "no fact in
either scope": the block of a project with no fact (and no user fact) is empty, whatever else
the store holds.

Any doubt answers None and the caller opens the store the usual way, which says what is wrong:
a file that is not ours or not SQLite, a format this code does not read (newer, or too old to
read without an upgrade), a file SQLite cannot open read-only as it is (a WAL store in a
directory we may not write), a store path that is a symbolic link (the store never follows
one; the usual open refuses it and says so), any error at all.
"""

from __future__ import annotations

import os
import sqlite3

from claimgraph import STORE_FORMAT

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from collections.abc import Sequence

#: ``sqlite_schema.APPLICATION_ID`` ("CLGR"); not imported, as that loads the schema's SQL.
APPLICATION_ID = 0x434C4752
#: The oldest format a reader reads (``sqlite_schema.READS_OLDER``'s lowest).
OLDEST_READ = 4

_URI_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~/")
_HEADER = ("SELECT (SELECT user_version FROM pragma_user_version),"
           " (SELECT application_id FROM pragma_application_id)")


def file_uri(path: str | os.PathLike[str]) -> str:
    """``Path(path).absolute().as_uri()``, built here: ``as_uri`` loads ``urllib.parse``, which
    a read command otherwise never needs (``claimgraph.deferred.defer_urllib_parse``), and
    without ``pathlib`` itself, which the SessionStart hook's "no fact" answer otherwise never
    loads (~2 ms of its start with ``urllib.parse``). Like ``Path.absolute`` it joins a
    relative path to the working directory without resolving ``..`` (which would be wrong
    across a symbolic link); it drops ``.`` parts and doubled slashes as ``Path`` does."""
    encoded = os.fsencode(_absolute(os.fspath(path)))
    return "file://" + "".join(chr(b) if b in _URI_SAFE else f"%{b:02X}" for b in encoded)


def _absolute(path: str) -> str:
    """``str(Path(path).absolute())`` with ``os.path`` alone (``file_uri``)."""
    joined = path if os.path.isabs(path) else os.path.join(os.getcwd(), path)
    lead = "//" if joined.startswith("//") and not joined.startswith("///") else "/"
    parts = [part for part in joined.split("/") if part not in ("", ".")]
    return lead + "/".join(parts)


def has_facts(path: str, scopes: Sequence[str]) -> bool | None:
    """True when the store at ``path`` holds a fact (of any state) in one of ``scopes``, False
    when it holds none, None when it cannot tell (module docstring)."""
    if os.path.islink(path):
        return None
    try:
        conn = sqlite3.connect(f"{file_uri(path)}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        version, app = conn.execute(_HEADER).fetchone()
        if app != APPLICATION_ID or not OLDEST_READ <= version <= STORE_FORMAT:
            return None
        marks = ",".join("?" * len(scopes))
        found = conn.execute(f"SELECT EXISTS (SELECT 1 FROM facts WHERE scope IN ({marks}))",
                             list(scopes)).fetchone()
        return bool(found[0])
    except sqlite3.Error:
        return None
    finally:
        conn.close()
