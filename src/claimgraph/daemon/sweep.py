"""The sweep: find sessions that ended without a capture, and capture each in a child process.

What counts as uncaptured: a Claude Code transcript (``$CLAUDE_CONFIG_DIR`` or ``~/.claude``,
``projects/*/*.jsonl``), a Codex rollout (``$CODEX_HOME`` or ``~/.codex``,
``sessions/**/*.jsonl``) or a Gemini session (``$GEMINI_CLI_HOME/.gemini`` or ``~/.gemini``,
``tmp/*/chats/session-*.json[l]``; its subagents' files are read with it) untouched for the
idle time and larger than its session's high-water mark (``capture:<agent>:<session>``, the
session id as the agent's hooks name it: ``capture.session_ids``), and a spool file older than
the spool age (its hook's own capture should have consumed it by then). Codex's default TUI
fires SessionEnd only when its daemon unloads a session, so the sweep is what finally
captures the end of a Codex session whose last Stop hook came before its last lines. The capture
pass itself is idempotent and guarantees that racing captures of one session capture it once, so the
sweep may be wrong in the safe direction (start a capture that finds nothing new) and needs no lock
of its own.

Each capture runs as ``python -m claimgraph capture`` in a child process with a bounded
timeout: a crash or a hang in extraction cannot take the daemon down, and a killed capture
leaves nothing half-written. Our own model calls run in ``claimgraph-llm-*`` temp directories;
sessions an agent recorded there are our extractor talking, never the user's work, and skipped.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator, Mapping

import structlog

from claimgraph.capture.failures import FailureLedger, is_due as is_retry_due, is_poisoned
from claimgraph.capture.links import check_transcript_link
from claimgraph.capture.session_ids import session_id_of
from claimgraph.daemon.settings import DaemonSettings
from claimgraph.errors import ClaimgraphError
from claimgraph.hooks.agents import claude_config_dir, codex_home, gemini_dir
from claimgraph.model_command import TEMP_PREFIX, kill_tree
from claimgraph.opening import open_store
from claimgraph.private import (
    NOFOLLOW, is_id, open_private, private_dir, read_nofollow, refuse_unsafe_directory)
from claimgraph.sidecar import Sidecars

OWN_LLM_DIR = "-" + re.sub(r"[^A-Za-z0-9]", "-", TEMP_PREFIX)  # as Claude Code munges a cwd
log = structlog.get_logger("claimgraph.daemon")


@dataclasses.dataclass(frozen=True)
class Candidate:
    """A capture to start: a spool file, or a transcript with its agent and session."""

    kind: str
    path: str
    agent: str | None = None
    session: str | None = None

    def argv(self, db: Path) -> list[str]:
        head = [sys.executable, "-m", "claimgraph", "capture", "--db", str(db), "--no-curate"]
        if self.kind == "spool":
            return [*head, "--spool", self.path]
        return [*head, "--agent", str(self.agent), "--session", str(self.session), "--", self.path]


def transcripts(environ: Mapping[str, str]) -> Iterator[tuple[Path, str]]:
    """Every agent transcript on this machine, with its agent; our own model calls left out."""
    for path in sorted((claude_config_dir(environ) / "projects").glob("*/*.jsonl")):
        if OWN_LLM_DIR not in path.parent.name:
            yield path, "claude-code"
    for path in sorted((codex_home(environ) / "sessions").glob("**/*.jsonl")):
        if not _codex_cwd(path).startswith(TEMP_PREFIX):
            yield path, "codex"
    chats = gemini_dir(environ) / "tmp"
    for path in sorted([*chats.glob("*/chats/session-*.jsonl"),
                        *chats.glob("*/chats/session-*.json")]):
        if not path.parent.parent.name.startswith(TEMP_PREFIX):
            yield path, "gemini"


def _codex_cwd(path: Path) -> str:
    """The base name of the rollout's session cwd (its first line is ``session_meta``)."""
    try:
        with open(path, "rb") as handle:
            first = json.loads(handle.readline(65536) or b"{}")
        return os.path.basename(str(first.get("payload", {}).get("cwd") or ""))
    except (OSError, ValueError, AttributeError):
        return ""


def spool_files(db: Path, min_age_s: float, now: float) -> list[Path]:
    """Spool files at least ``min_age_s`` old (younger ones belong to a running capture)."""
    directory = Sidecars(db).spool_dir
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.glob("*.json") if now - _mtime(p) >= min_age_s)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return float("inf")


def is_due(path: Path, mark: Any, now: float, idle_s: float) -> bool:
    """Idle long enough, and holding bytes beyond the mark (or marked on another file)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return False
    if now - info.st_mtime < idle_s or info.st_size == 0:
        return False
    if not isinstance(mark, dict) or not isinstance(mark.get("offset"), int):
        return True
    if os.path.realpath(str(mark.get("transcript"))) != os.path.realpath(path):
        return True
    offset: int = mark["offset"]
    return info.st_size > offset


def find_candidates(db: Path, environ: Mapping[str, str], settings: DaemonSettings,
                    now: float) -> list[Candidate]:
    """Spool files first (they carry the hook's cwd); then due transcripts not spooled.
    A session whose captures keep failing waits out its backoff, and once poisoned is left
    alone (``capture.failures``); a transcript that is a symlink leading out of the agent's
    transcript directories is never followed."""
    failures = FailureLedger(db).entries()
    spools = spool_files(db, settings.spool_age_seconds, now)
    payloads = {p: _spool_fields(p) for p in spools}
    spools = [p for p in spools if _spool_ok(p, payloads[p])]
    found = [Candidate("spool", str(p)) for p in spools
             if _retry_due(failures, _spool_key(payloads[p]), now, str(p))]
    spooled = {payload.get("transcript_path") for payload in payloads.values()}
    marks = _MarkReader(db)
    try:
        for path, agent in sorted(transcripts(environ), key=_age):  # oldest session first
            session = session_id_of(path, agent)
            key = f"capture:{agent}:{session}"
            # a Codex session swept before the ids were read from the files: keyed by name
            mark = marks.get(key) or marks.get(f"capture:{agent}:{path.stem}")
            if str(path) in spooled or not is_due(path, mark, now, settings.idle_minutes * 60):
                continue
            if _retry_due(failures, key, now, str(path)) and _stays_inside(path, environ):
                found.append(Candidate("transcript", str(path), agent, session))
    finally:
        marks.close()
    return found


def _age(found: tuple[Path, str]) -> float:
    """Sessions are captured in the order they happened: a fact's valid time then only ever
    moves forward, and a newer value supersedes an older one instead of being flagged."""
    try:
        return found[0].stat().st_mtime
    except OSError:
        return 0.0


def _spool_fields(spool: Path) -> dict[str, Any]:
    try:
        data = json.loads(read_nofollow(spool, 1 << 20).decode("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _spool_ok(spool: Path, payload: Mapping[str, Any]) -> bool:
    """A spool file is used only when it is a regular file naming ids (``private.is_id``):
    a session id like ``$(touch x)`` was never written by our hook."""
    bad = [key for key in ("agent", "session_id")
           if payload.get(key) is not None and not is_id(payload.get(key))]
    if bad or spool.is_symlink():
        log.warning("daemon.spool-refused", path=str(spool), fields=bad or None,
                    reason="a symlink" if not bad else "fields that are not ids")
        return False
    return True


def _spool_key(payload: Mapping[str, Any]) -> str | None:
    agent, session = payload.get("agent"), payload.get("session_id")
    return f"capture:{agent}:{session}" if agent and session else None


def _retry_due(failures: Mapping[str, Any], key: str | None, now: float, what: str) -> bool:
    entry = failures.get(key) if key else None
    if entry is None or is_retry_due(entry, now):
        return True
    log.debug("daemon.capture-deferred", path=what, key=key, failures=entry.get("failures"),
              poisoned=is_poisoned(entry), next_try_at=entry.get("next_try_at"))
    return False


def _stays_inside(path: Path, environ: Mapping[str, str]) -> bool:
    """A transcript found in an agent's directory must not lead out of it through a link."""
    try:
        check_transcript_link(str(path), environ)
    except ClaimgraphError as refused:
        log.warning("daemon.symlink-refused", path=str(path), reason=refused.message)
        return False
    return True


class _MarkReader:
    """The store's marks, opened lazily and only if the store exists (a sweep never creates it)."""

    def __init__(self, db: Path) -> None:
        self.store = open_store(db, create=False) if Path(db).exists() else None

    def get(self, key: str) -> Any:
        return None if self.store is None else self.store.get_mark(key)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()


class Sweeper:
    """One sweep pass at a time; ``cancel`` (from another thread) stops it and its child."""

    def __init__(self, db: Path, environ: Mapping[str, str], settings: DaemonSettings) -> None:
        self.db, self.environ, self.settings = Path(db).absolute(), dict(environ), settings
        self._stop = threading.Event()
        self._child: subprocess.Popen[bytes] | None = None

    def run(self) -> dict[str, Any]:
        """Capture every candidate; a summary with counts per outcome."""
        counts: dict[str, int] = {}
        refuse_unsafe_directory(self.db)
        candidates = find_candidates(self.db, self.environ, self.settings, time.time())
        for candidate in candidates:
            if self._stop.is_set():
                break
            outcome = self._capture(candidate)
            counts[outcome] = counts.get(outcome, 0) + 1
        return {"found": len(candidates), **counts}

    def cancel(self) -> None:
        self._stop.set()
        child = self._child
        if child is not None and child.poll() is None:
            kill_tree(child)

    def _capture(self, candidate: Candidate) -> str:
        """Run one capture child; its report line goes to the capture log like any other."""
        logfile = Sidecars(self.db).capture_log
        private_dir(logfile.parent)
        with open_private(logfile, "ab") as errors:
            self._child = subprocess.Popen(
                candidate.argv(self.db), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=errors, start_new_session=True, close_fds=True, cwd="/", env=self.environ)
        try:
            out, _ = self._child.communicate(timeout=self.settings.capture_timeout_secs)
        except subprocess.TimeoutExpired:
            kill_tree(self._child)
            log.error("daemon.capture-timeout", transcript=candidate.path,
                      timeout_s=self.settings.capture_timeout_secs)
            return "timed-out"
        finally:
            child, self._child = self._child, None
        _append(logfile, out)
        return _outcome(child.returncode, out, self._stop.is_set())


def _append(logfile: Path, data: bytes) -> None:
    """The child's report line, in one O_APPEND write so it never interleaves."""
    if data:
        fd = os.open(logfile, os.O_WRONLY | os.O_APPEND | os.O_CREAT | NOFOLLOW, 0o600)
        try:
            os.write(fd, data if data.endswith(b"\n") else data + b"\n")
        finally:
            os.close(fd)


def _outcome(code: int | None, out: bytes, stopped: bool) -> str:
    if code != 0:
        return "cancelled" if stopped else "failed"
    try:
        return str(json.loads(out.decode("utf-8").strip().splitlines()[-1]).get("status"))
    except (ValueError, IndexError, AttributeError):
        return "ok"
