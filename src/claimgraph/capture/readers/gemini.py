"""Gemini CLI sessions as normalized events: both formats, one way of turning a message into events.

Two formats, told apart by the file itself (there is no version field):
- 0.61 and later (``session-<YYYY-MM-DDTHH-MM>-<8hex>.jsonl``): JSON lines, a metadata line
  first, then message records that a later line with the same ``id`` replaces, ``$set``
  metadata updates and ``$rewindTo`` records (``gemini_jsonl``);
- before that (``session-<date>-<8hex>.json``): ONE JSON document, rewritten as it grows
  (``gemini_document``). A document written on one line is also a valid first JSONL line: a
  metadata record holding ``messages``, which Gemini itself reads that way, and so do we.

Both turn messages into events the same way (``gemini_messages``).
"""

from __future__ import annotations

from typing import Any

from claimgraph.capture.events import Transcript
from claimgraph.capture.readers import gemini_document, gemini_jsonl
from claimgraph.capture.readers.gemini_messages import (AGENT, split_hook_context,
                                                      split_referenced_files)

__all__ = ["AGENT", "read", "split_hook_context", "split_referenced_files"]


def read(path: str, start_offset: int = 0, **options: Any) -> Transcript:
    """Either format, judged by the first line: a complete JSON object there is JSONL."""
    if gemini_jsonl.is_jsonl(path):
        return gemini_jsonl.read(path, start_offset, **options)
    return gemini_document.read(path, start_offset)
