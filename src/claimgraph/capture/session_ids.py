"""A transcript's session id, as its agent's hooks name the session.

Captures are keyed by ``(agent, session)``, and a session must get the same key whichever
way it is captured: from a hook's payload (which gives the id), from the daemon's sweep or a
``claimgraph capture FILE`` (which have only the file). Claude Code names the file after the
session; the other two do not:
- Codex: ``rollout-<timestamp>-<session uuid>.jsonl``; the ``session_meta`` first line holds
  the id too (``payload.id``), and wins.
- Gemini: ``session-<YYYY-MM-DDTHH-MM>-<first 8 hex of the id>.json[l]``; the id is the
  ``sessionId`` of the metadata line (0.61 JSONL) or of the document (before).
Only the file's head is read; anything unreadable falls back to the file name's stem.
"""

from __future__ import annotations

import json
from claimgraph.logic.lazy_regex import lazy_regex
from pathlib import Path

HEAD_BYTES = 64 * 1024
_UUID_TAIL = lazy_regex(r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}"
                        r"-[0-9a-fA-F]{12})$")
_SESSION_ID = lazy_regex(r'"sessionId"\s*:\s*"([^"\\]{1,200})"')


def session_id_of(path: str | Path, agent: str) -> str:
    path = Path(path)
    if agent == "codex":
        return _codex(path)
    if agent == "gemini":
        return _gemini(path)
    return path.stem


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(HEAD_BYTES)
    except OSError:
        return b""


def _first_record(head: bytes) -> dict | None:
    try:
        record = json.loads(head.split(b"\n", 1)[0])
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _codex(path: Path) -> str:
    record = _first_record(_head(path)) or {}
    payload = record.get("payload") if isinstance(record.get("payload"), dict) else record
    found = payload.get("id")
    if isinstance(found, str) and found.strip():
        return found.strip()
    match = _UUID_TAIL.search(path.stem)
    return match[1] if match else path.stem


def _gemini(path: Path) -> str:
    head = _head(path)
    record = _first_record(head)
    found = record.get("sessionId") if record else None
    if not isinstance(found, str):
        match = _SESSION_ID.search(head.decode("utf-8", "replace"))
        found = match[1] if match else None
    return found.strip() if isinstance(found, str) and found.strip() else path.stem
