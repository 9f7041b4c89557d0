"""When a captured fact became true: the session's time, not the moment capture ran.

A transcript captured a week late (the sweep catching up, a backfill of old sessions, a
re-capture) must not claim its facts began today, or ``facts --as-of`` on that week lies.
Extractors put ``valid_from`` (int ms UTC) on a candidate from the line that taught it; a
candidate without one gets the segment's session time: the LAST timestamp among the
segment's events (by then the session surely knew it), else the transcript file's mtime
(the last write, which is when the session was last there). A time after ``now`` (a skewed
clock, a corrupt stamp) is clamped to now: a fact valid only in the future would be invisible
to every query today.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Mapping

from claimgraph.capture.events import Transcript


def session_time(transcript: Transcript) -> int | None:
    """The segment's last event timestamp, else the file's mtime, else None (now)."""
    stamps = [e.timestamp for e in transcript.events if isinstance(e.timestamp, int)]
    if stamps:
        return max(stamps)
    try:
        return int(os.stat(transcript.path).st_mtime * 1000)
    except OSError:
        return None


def dated(candidates: Iterable[Mapping[str, Any]], session_ms: int | None,
          now_ms: int) -> list[dict[str, Any]]:
    """Each candidate with a ``valid_from`` no later than now (see the module docstring)."""
    out = []
    for candidate in candidates:
        given = candidate.get("valid_from")
        valid = given if _is_ms(given) else session_ms
        out.append({**candidate, "valid_from": None if valid is None else min(valid, now_ms)})
    return out


def in_valid_order(candidates: Iterable[Mapping[str, Any]], transcript: Transcript,
                   now_ms: int) -> list[dict[str, Any]]:
    """Dated, then in the order the session learned them (stable: ties keep the extractor's
    order), so a value changed later in the session supersedes the earlier one instead of
    being flagged as backdated against it."""
    return sorted(dated(candidates, session_time(transcript), now_ms),
                  key=lambda c: c["valid_from"] or 0)


def _is_ms(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
