"""A Codex message whose two copies a capture pass cut apart (issue 22).

Codex writes each visible message twice, an item and its echo, one right after the other
(codex.py pairs them). Capture reads a rollout in passes, each from where the last stopped,
so a pass can end between the two copies: the first is read in one pass, the second starts
the next. Read alone, the second copy is a new message -- the person's statements stored
again, as if a second session had said them (false corroboration), a request restated.

So a pass that ends on a copy still unpaired (the last message or tool record it read, no
other one after it) hands the next pass an ``OpenCopy``: the copy's role, its text's digest
(never the text: it is kept in the capture mark), which copy it was, when it was written,
and whether the pass read it as the message. The next pass pairs its FIRST message or tool
record with it when that record is the other copy of the same text, written within the gap
an item and its echo are written in: that copy is the message read already, and is counted
as a duplicate. Anything else first (another message, a tool call) ends the chance: the same
words sent again later are another message, as within one pass. A copy the last pass took
for the harness's (a user item no echo of its own pass matched: ``codex.unechoed_is_harness``)
was not read as the message, so its echo still is.

Only word-for-word copies pair across a cut (the digest cannot tell that one text wraps the
other, as an attached image's markup does; within one pass ``pair_rewritten_echoes`` can).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from claimgraph.capture.readers.gemini_messages import text_digest

#: The two copies of a message.
ITEM, ECHO = "item", "echo"
#: How far apart in time an item and its echo are written, at most (the same turn's start).
ECHO_GAP_MS = 10_000


@dataclass(frozen=True)
class OpenCopy:
    """One copy of a message whose other copy was not read yet, as a capture mark keeps it."""

    role: str
    digest: str
    copy: str
    stamp: int | None = None
    read: bool = True  # False: the pass took it for the harness's, not read as the message

    def pairs_with(self, role: str, text: str, copy: str, stamp: int | None) -> bool:
        """Whether ``text`` (stripped) is this message's other copy."""
        if copy == self.copy or role != self.role or text_digest(text) != self.digest:
            return False
        return self.stamp is None or stamp is None or abs(stamp - self.stamp) <= ECHO_GAP_MS

    def as_json(self) -> dict[str, Any]:
        return {"role": self.role, "digest": self.digest, "copy": self.copy,
                "stamp": self.stamp, "read": self.read}


def open_copy(role: str, text: str, copy: str, stamp: int | None) -> OpenCopy:
    """``text`` stripped, as the reader keys messages."""
    return OpenCopy(role, text_digest(text), copy, stamp)


def resume_state(copy: OpenCopy | None, end_offset: int) -> dict[str, Any]:
    """What the mark keeps for the next pass: nothing when no copy is open."""
    return {"offset": end_offset, "open": copy.as_json()} if copy else {}


def carried(resume: Mapping[str, Any] | None, start_offset: int) -> OpenCopy | None:
    """The copy left open at ``start_offset`` by the pass that stopped there; None for a
    state made at another offset (a purge moved the start, the file was read again) or one
    that does not parse: that costs the pairing, never an event."""
    if not isinstance(resume, Mapping) or resume.get("offset") != start_offset:
        return None
    kept = resume.get("open")
    if not isinstance(kept, Mapping):
        return None
    role, digest, copy, stamp, read = (kept.get(k) for k in
                                       ("role", "digest", "copy", "stamp", "read"))
    if not (isinstance(role, str) and isinstance(digest, str) and copy in (ITEM, ECHO)
            and (stamp is None or type(stamp) is int) and isinstance(read, bool)):
        return None
    return OpenCopy(role, digest, copy, stamp, read)
