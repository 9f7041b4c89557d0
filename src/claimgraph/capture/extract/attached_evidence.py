"""A fact read from a file the person attached says so in its provenance.

A rule that learns from a file the session saw cites it like any other (``path: `line```,
``session.file_evidence``), whether a tool read it or the person attached it to a prompt
(``attached.py``). When every look that shows the quoted line is the person's attachment, the
fact gains, where there is room, the attachment's transcript line ("``transcript#L<n>: the
person attached @path``"): how it was seen is part of why it can be trusted (the person
pointed at the file), and the attachment is where a reviewer finds it in the session.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from claimgraph.capture.extract.attached import attached_files
from claimgraph.capture.extract.reads import SeenFile, surviving_looks
from claimgraph.capture.extract.session import SessionView, transcript_evidence
from claimgraph.logic.lazy_regex import lazy_regex

#: ``session.file_evidence``'s shape: ``path: `code```.
_FILE_EVIDENCE = lazy_regex(r"^(?P<path>[^\s`]+): `(?P<code>.*)`$", re.DOTALL)


def noted(view: SessionView, candidates: list[dict[str, Any]], room: int
          ) -> list[dict[str, Any]]:
    """``candidates``, each citing a line of a file it was seen in only through the person's
    attachment gaining that attachment's transcript line as evidence (when it has fewer than
    ``room`` pieces): the fact's provenance says the person showed the file."""
    if not attached_files(view):
        return candidates
    looks = {seen[-1].cited: seen for seen in surviving_looks(view).values() if seen[-1].cited}
    for found in candidates:
        evidence = found.get("evidence") or []
        note = next((n for n in (_attachment_of(looks, e) for e in evidence) if n), None)
        if note is not None and len(evidence) < room and note not in evidence:
            found["evidence"] = [*evidence, note]
    return candidates


def _attachment_of(looks: dict[str, Sequence[SeenFile]], evidence: str) -> str | None:
    """The attachment evidence for one ``path: `code``` citation seen only attached."""
    cited = _FILE_EVIDENCE.match(str(evidence))
    if cited is None:
        return None
    path, code = cited["path"].removeprefix("./"), cited["code"]
    seen = [look for look in looks.get(path, ()) if code in look.text]
    if not seen or not all(look.attached for look in seen):
        return None
    return transcript_evidence(seen[-1].call.line, f"the person attached @{path}")
