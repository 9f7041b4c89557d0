"""Helpers for the daemon tests: a synthetic Claude Code session, CLI subprocesses, waiting."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

from claimgraph.opening import open_store


def write_session(projects: Path, cwd: Path, session_id: str, munged: str | None = None) -> Path:
    """A small Claude Code transcript (the envelope of tests/capture's Session helper) holding
    a directive the built-in extractor turns into a fact."""
    directory = projects / (munged or "".join(c if c.isalnum() else "-" for c in str(cwd)))
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{session_id}.jsonl"
    base = {"parentUuid": None, "isSidechain": False, "sessionId": session_id, "cwd": str(cwd),
            "version": "2.1.39", "gitBranch": "main"}
    records = [
        {**base, "type": "user", "uuid": "u-1", "timestamp": "2026-03-01T10:00:01.000Z",
         "message": {"role": "user", "content": "Always use uv instead of pip for this project."}},
        {**base, "type": "assistant", "uuid": "u-2", "timestamp": "2026-03-01T10:00:02.000Z",
         "message": {"id": "msg-2", "role": "assistant", "model": "claude-test",
                     "content": [{"type": "text", "text": "Noted."}]}}]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def cli(*argv: str, env: dict[str, str] | None = None, timeout: float = 60,
        ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "claimgraph", *argv], text=True,
                          capture_output=True, env={**os.environ, **(env or {})}, timeout=timeout)


def episodes(db: Path) -> list[str]:
    """The refs of every episode in the store (none when there is no store)."""
    if not db.exists():
        return []
    store = open_store(db, create=False)
    try:
        return sorted(e["ref"] for e in store.list_episodes())
    finally:
        store.close()


def wait_for(check: Callable[[], Any], timeout: float = 30, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")
