"""``digest`` keeps the agent's messages as the events they are in, each text read from its
event when ``reconcile`` asks (``packed.EventTexts``): the same (line, text) pairs as the
list it held before, without every message held inflated through ``reconcile``."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimgraph.capture.events import Event
from claimgraph.capture.extract.reconcile import digest
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.packed import EventTexts, pack, spilling
from claimgraph.capture.segment import read_cleaned

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts" / "claude-code"
SESSIONS = sorted(FIXTURES.glob("*.jsonl"))


@pytest.mark.parametrize("path", SESSIONS, ids=[p.stem[:12] for p in SESSIONS])
def test_the_agent_said_pairs_are_read_from_the_events(path):
    cleaned, _ = read_cleaned(str(path), "claude-code")
    said = digest(SessionView.of(cleaned, None)).agent_said
    want = [(e.line, e.text) for e in cleaned.events if e.kind == "assistant"
            and not e.is_sidechain and not e.subagent_id and not e.derived]
    assert isinstance(said, EventTexts)
    assert list(said) == want and len(said) == len(want)
    assert [said[i] for i in range(len(said))] == want
    assert said[1:-1] == want[1:-1] and said[::-1] == want[::-1]


def test_event_texts_hold_events_not_their_texts(tmp_path):
    long = "The agent explained the change at length. " * 20
    with spilling(str(tmp_path)):
        events = [pack(Event(kind="assistant", agent="claude-code", source_file="s", line=n,
                             text=f"{n}: {long}")) for n in (3, 5, 8)]
        texts = EventTexts(events)
        assert [line for line, _ in texts] == [3, 5, 8]
        assert texts[1] == (5, f"5: {long}") and texts[-1][1].startswith("8: ")
        assert (8, f"8: {long}") in texts
        assert texts._events is events  # no text kept beside the events
