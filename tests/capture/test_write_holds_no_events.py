"""Once the candidates are screened, nothing holds the transcript's events: the store's write
(the episode, the facts, the mark, the operation log) runs without them, where a long
session's pass peaked (issue 29); and the mark is the one the whole transcript gives."""

from __future__ import annotations

import gc
import os
from pathlib import Path

from claimgraph.capture import run
from claimgraph.capture.events import Transcript
from claimgraph.opening import open_store

FIXTURE = (Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"
           / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")


def test_the_write_runs_with_no_transcript_holding_events(monkeypatch):
    db = Path(os.environ["CLAIMGRAPH_DB"])
    commit = run._commit
    seen: list[tuple[int, list[int]]] = []
    before = {id(t) for t in gc.get_objects() if isinstance(t, Transcript)}  # other tests'

    def committing(sh, request, options, held, transcript, *rest, **kwargs):
        gc.collect()
        alive = [len(t.events) for t in gc.get_objects()
                 if isinstance(t, Transcript) and t.path == str(FIXTURE) and id(t) not in before]
        seen.append((len(transcript.events), alive))
        return commit(sh, request, options, held, transcript, *rest, **kwargs)

    monkeypatch.setattr(run, "_commit", committing)
    request = run.make_request(str(FIXTURE), agent="claude-code", environ=dict(os.environ))
    report = run.capture(request, run.Options(db=db, environ=dict(os.environ)))
    assert report["status"] == "captured" and report["events"] > 100
    assert seen == [(0, [0])]  # the write's copy has none, and no other copy is alive
    store = open_store(db)
    try:
        mark = store.get_mark(request.mark_key)
    finally:
        store.close()
    assert mark["offset"] == FIXTURE.stat().st_size and mark["line"] > 100


def test_without_events_keeps_what_the_write_reads():
    transcript = Transcript("p", "claude-code", None, (), 3, 90, 7, {"events": 2}, (),  # type: ignore[arg-type]
                            {"sub": 5}, {"k": 1}, ["id-1", "id-2"])
    kept = run._without_events(transcript)
    assert (kept.start_offset, kept.end_offset, kept.end_line, kept.subagent_offsets,
            kept.resume, kept.counts) == (3, 90, 7, {"sub": 5}, {"k": 1}, {"events": 2})
    assert kept.events == () and kept.record_ids is None
