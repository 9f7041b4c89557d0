"""The chain that backs one fact: fact → episode → transcript lines → cited files, judged now.

A fact is only as good as what it was read from. This walks back from the fact to the episode
that recorded it, to the events of the stored transcript segment its ``transcript#L<n>``
citations name (the cleaned, redacted text capture kept in the evidence tier: what the session
actually said, not what the extractor made of it), and to each file it cites with that file's
CURRENT audit verdict, so a reader sees both where a claim came from and whether it still holds.
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

from claimgraph.core.audit import Auditor, cited_files
from claimgraph.core.shell import Shell
from claimgraph.errors import ClaimgraphError
from claimgraph.sidecar import Sidecars

_TRANSCRIPT_LINE = re.compile(r"transcript#L(\d+):\s")


def transcript_lines(fact: Mapping[str, Any]) -> list[int]:
    """Line numbers the fact's ``transcript#L<n>: quote`` evidence cites, in citation order."""
    found = (_TRANSCRIPT_LINE.match(e.strip()) for e in fact.get("evidence") or []
             if isinstance(e, str))
    return list(dict.fromkeys(int(m[1]) for m in found if m))


def _segment_events(sidecars: Sidecars | None, name: str | None) -> list[dict[str, Any]]:
    """The stored segment's events (its first line is the header, not an event)."""
    if sidecars is None or not name:
        raise ClaimgraphError("no-segment", "the fact's episode stored no transcript segment")
    events = []
    for line in sidecars.get_evidence(name).splitlines()[1:]:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def _event_view(event: Mapping[str, Any]) -> dict[str, Any]:
    """What a reader needs from an event: where, who, and the text (or the tool call)."""
    text = event.get("text") or ""
    if not text and event.get("tool_input") is not None:
        text = f"{event.get('tool_name') or 'tool'} " + json.dumps(
            event["tool_input"], ensure_ascii=False, sort_keys=True)
    return {"line": event.get("line"), "kind": event.get("kind"),
            "tool_name": event.get("tool_name"), "source_file": event.get("source_file"),
            "text": text}


def transcript(sidecars: Sidecars | None, episode: Mapping[str, Any] | None,
               lines: list[int]) -> dict[str, Any]:
    """``{lines: [...]}`` for the cited line numbers, or ``{error}`` when the segment is gone
    (a pruned evidence tier must not hide the rest of the chain)."""
    if not lines:
        return {"lines": []}
    try:
        events = _segment_events(sidecars, (episode or {}).get("evidence"))
    except ClaimgraphError as err:
        return {"lines": [], "error": err.message}
    wanted = set(lines)
    return {"lines": [_event_view(e) for e in events if e.get("line") in wanted]}


def provenance(sh: Shell, fact_id: str, *, sidecars: Sidecars | None = None,
               base: str | None = None,
               environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``{fact, episode, transcript: {lines}, files: [audit checks]}`` for one fact."""
    fact = sh.store.get_fact(fact_id)
    if fact is None:
        raise ClaimgraphError("no-such-fact", f"no fact {fact_id}",
                              hint="use an id shown by `claimgraph facts` or `search`",
                              fact=fact_id)
    episode = sh.store.get_episode(fact["episode"]) if fact.get("episode") else None
    auditor = Auditor(sh, base, sidecars, environ)
    return {"fact": fact, "episode": episode,
            "transcript": transcript(sidecars, episode, transcript_lines(fact)),
            "files": [auditor.check(fact, e) for e in cited_files(fact)]}
