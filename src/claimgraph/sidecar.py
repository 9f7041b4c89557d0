"""The store file ``<db>`` and the sidecar files beside it (docs/store.md).

Everything a store owns lives next to it under one name, so moving, backing up or deleting
a memory is moving ``<db>*``. This module only names paths and keeps two small tiers that
are plain files: the version stamp (readable without opening SQLite, so a future format is
refused before the database is touched) and the content-addressed evidence tier (the
normalized transcripts that facts cite; write-once, so a citation can never change under it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from claimgraph import STORE_FORMAT, __version__
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.lazy_regex import lazy_regex
from claimgraph.private import private_dir, sidecar_base

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Mapping

_EVIDENCE_NAME = lazy_regex(r"(?:sha256-)?([0-9a-f]{64})")


def default_db_path(environ: Mapping[str, str]) -> Path:
    """$CLAIMGRAPH_DB, else $XDG_DATA_HOME/claimgraph/claims.db, else ~/.local/share/…."""
    home = Path(environ.get("HOME") or Path.home())
    explicit = environ.get("CLAIMGRAPH_DB")
    if explicit:
        from claimgraph import location
        if location.is_server_url(explicit):
            return location.resolve(explicit, environ)
        return _expand_home(explicit, home)
    data_home = environ.get("XDG_DATA_HOME")
    if not data_home or not Path(data_home).is_absolute():  # the XDG spec ignores relative paths
        data_home = str(home / ".local" / "share")
    return Path(data_home) / "claimgraph" / "claims.db"


def _expand_home(raw: str, home: Path) -> Path:
    """``~`` from the given environment, not the process's, so the function stays pure."""
    if raw == "~" or raw.startswith("~/"):
        return home / raw[2:]
    return Path(raw)


def atomic_write_text(path: Path | str, text: str) -> None:
    """Write via a temp file in the same directory and rename: readers see old or new, never
    half."""
    import tempfile  # a write path only: reads open sidecars through this module
    target = Path(path)
    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    _fsync_dir(target.parent)


def _fsync_dir(directory: Path) -> None:
    """Make the rename itself durable; best effort (some filesystems refuse directory fsync)."""
    try:
        handle = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def _sidecar(suffix: str, doc: str) -> property:
    """A read-only path ``<db><suffix>``."""
    return property(lambda self: self._beside(suffix), doc=f"<db>{suffix}: {doc}")


class Sidecars:
    """Paths beside ``<db>``, the version stamp, and the evidence tier."""

    def __init__(self, db_path: Path | str) -> None:
        self.db = Path(db_path)

    def _beside(self, suffix: str) -> Path:
        """``<db><suffix>``; an in-memory store's in its process's private directory."""
        return Path(sidecar_base(self.db) + suffix)

    evidence_dir = _sidecar(".evidence", "content-addressed transcripts that facts cite")
    oplog_dir = _sidecar(".oplog", "per-writer operation logs for multi-machine sync")
    retrievals = _sidecar(".retrievals", "JSONL of reads and outcomes")
    lock = _sidecar(".lock", "the write lease")
    curate_lock = _sidecar(".curate.lock", "the curation lease")
    capture_log = _sidecar(".capture.log", "capture pass log (JSON lines)")
    curate_log = _sidecar(".curate.log", "curator log (JSON lines)")
    daemon_log = _sidecar(".daemon.log", "daemon log (JSON lines)")
    mcp_log = _sidecar(".mcp.log", "MCP server log (JSON lines)")
    version_file = _sidecar(".version", 'the stamp {"format", "version"}')
    spool_dir = _sidecar(".spool", "hook payloads not yet captured")
    daemon_pid = _sidecar(".daemon.pid", "the daemon's pid and start time")
    crash_log = _sidecar(".crash.log", "tracebacks of unexpected errors (rotated like the logs)")
    capture_failures = _sidecar(".capture-failures.json", "sessions whose capture failed")
    damaged = _sidecar(".damaged", "what an integrity check found; while it exists, writes stop")

    # --- version stamp -----------------------------------------------------------------
    def write_version_stamp(self, fmt: int = STORE_FORMAT) -> None:
        """Record the format this build writes, unless the stamp already says exactly that."""
        text = json.dumps({"format": fmt, "version": __version__}) + "\n"
        if self.version_file.exists() and self.version_file.read_text(encoding="utf-8") == text:
            return
        private_dir(self.db.parent)
        atomic_write_text(self.version_file, text)

    def check_version_stamp(self, supported: int = STORE_FORMAT) -> dict[str, Any] | None:
        """The stamp, or None when absent; refuse a future format or an unreadable stamp."""
        path = self.version_file
        try:
            stamp = json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, NotADirectoryError):
            return None
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise _bad_stamp(path, str(error)) from None
        if not isinstance(stamp, dict) or type(stamp.get("format")) is not int:
            raise _bad_stamp(path, 'it does not hold {"format": <integer>, ...}')
        if stamp["format"] > supported:
            raise ClaimgraphError(
                "future-format",
                f"{self.db} has store format {stamp['format']} (written by claimgraph "
                f"{stamp.get('version', '?')}), but this claimgraph reads format {supported} at "
                "most",
                hint="upgrade claimgraph (pip install -U claimgraph) to open this store",
                path=str(self.db), found=stamp["format"], supported=supported)
        return stamp

    # --- evidence tier -----------------------------------------------------------------
    def put_evidence(self, text: str) -> str:
        """Store text under the hash of its UTF-8 bytes; an existing copy is never rewritten."""
        import hashlib
        data = text.encode("utf-8")
        name = "sha256-" + hashlib.sha256(data).hexdigest()
        path = self.evidence_dir / name
        if not path.exists():
            private_dir(self.evidence_dir)
            atomic_write_text(path, text)
        return name

    def get_evidence(self, name: str) -> str:
        """The text stored under a tagged (``sha256-<hex>``) or bare-hex name."""
        path = self.evidence_dir / _evidence_file(name)
        try:
            return path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            raise ClaimgraphError(
                "evidence-missing", f"no evidence {name} in {self.evidence_dir}",
                hint="the evidence tier may have been moved or pruned; restore <db>.evidence/",
                name=name, path=str(path)) from None

    def list_evidence(self) -> list[str]:
        """Tagged names of every stored evidence file, sorted (temp files are not evidence)."""
        if not self.evidence_dir.is_dir():
            return []
        return sorted(p.name for p in self.evidence_dir.iterdir()
                      if p.name.startswith("sha256-") and _EVIDENCE_NAME.fullmatch(p.name))


def _evidence_file(name: str) -> str:
    """Validate a name before it touches the filesystem (no paths, no partial hashes)."""
    match = _EVIDENCE_NAME.fullmatch(name.strip().lower()) if isinstance(name, str) else None
    if not match:
        raise ClaimgraphError(
            "invalid-evidence-name", f"{name!r} is not an evidence name",
            hint='evidence names are "sha256-" followed by 64 hex digits', name=str(name))
    return "sha256-" + match.group(1)


def _bad_stamp(path: Path, why: str) -> ClaimgraphError:
    return ClaimgraphError(
        "bad-version-stamp", f"cannot read the version stamp {path}: {why}",
        hint=('the file should hold {"format": 1, "version": "..."}; if the store itself is '
              "fine, delete the stamp and claimgraph will write it again"), path=str(path))


def read_json_object(path: Path) -> dict[str, Any] | None:
    """A small JSON-object file (pid file, status file, settings): None when absent,
    ``{"unreadable": True}`` when garbled, so callers can tell "missing" from "broken"."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {"unreadable": True}
    return data if isinstance(data, dict) else {"unreadable": True}
