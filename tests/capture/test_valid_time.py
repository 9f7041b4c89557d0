"""Valid time: a fact learned in a session is valid from the session's time, not from the
moment capture ran, so `facts --as-of` on old sessions tells the truth (dating.py)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from claimgraph.capture.dating import dated, session_time
from claimgraph.capture.extract import EXTRACTORS
from claimgraph.capture.readers import read_transcript
from claimgraph.cli.main import main
from claimgraph.logic.timeutil import to_iso
from claimgraph.opening import open_store

from .test_run import CLAUDE, TRANSCRIPTS, Session, capture

DAY = 86_400_000
#: Real sessions (Claude Code, Gemini) that yield facts with the built-in extractor.
DATED_FIXTURES = [CLAUDE / "full-session-four.jsonl", CLAUDE / "coverage-test-fix.jsonl",
                  CLAUDE / "python-to-rust-port.jsonl",
                  TRANSCRIPTS / "gemini" / "session-2025-10-27T19-55-981c87cb.json"]
#: Every real session, for the registered probe extractor (independent of the built-in rules).
EVERY_FIXTURE = sorted(p for p in TRANSCRIPTS.rglob("*.json*") if "subagents" not in p.parts
                       and p.parent.parent.name != "chats")
#: Sessions whose paths were rewritten before they were published (SOURCES.md): their Gemini
#: projectHash names a directory no longer in them, so their project is given as a cwd.
REWRITTEN = {"session-2026-12-02T18-15-89c95452.jsonl": "/tmp/agents/proj-gemini"}


@pytest.fixture
def db() -> Path:
    return Path(os.environ["CLAIMGRAPH_DB"])


def all_facts(db: Path) -> list[dict[str, Any]]:
    store = open_store(db, create=False)
    try:
        return store.all_facts()
    finally:
        store.close()


def facts_as_of(capsys, subject: str, scope: str, at_ms: int) -> list[dict[str, Any]]:
    """``claimgraph facts SUBJECT --entity-scope SCOPE --as-of ISO --json``."""
    capsys.readouterr()
    assert main(["facts", subject, "--entity-scope", scope, "--as-of", to_iso(at_ms),
                 "--json"]) == 0
    return json.loads(capsys.readouterr().out)["facts"]


def event_times(path: Path) -> tuple[int, int]:
    stamps = [e.timestamp for e in read_transcript(path).events if e.timestamp]
    return min(stamps), max(stamps)


@pytest.fixture
def dated_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """An extractor giving one fact per prompt, valid from that prompt (as the built-in
    extractors do for the line that taught a fact), and one fact with no time at all."""
    def extract(transcript, *, project_root):
        found = [{"subject": "api", "predicate": "core/has-status", "object": e.text.strip(),
                  "object_kind": "literal", "epistemic": "observation", "confidence": 0.8,
                  "scope": "project", "evidence": [f"{e.source_file}:{e.line}: {e.text}"],
                  "valid_from": e.timestamp, "rule": "probe"}
                 for e in transcript.events if e.kind == "prompt"]
        return found + [{"subject": "api", "predicate": "core/tested-by", "object": "pytest",
                         "object_kind": "entity", "confidence": 0.8, "scope": "project",
                         "evidence": ["probe"], "rule": "probe"}]
    monkeypatch.setitem(EXTRACTORS, "probe", extract)


# --- the rule ----------------------------------------------------------------------------------

def test_a_candidate_keeps_its_own_time_and_one_without_gets_the_session_s():
    out = dated([{"valid_from": 5}, {}, {"valid_from": None}, {"valid_from": True}], 100, 1000)
    assert [c["valid_from"] for c in out] == [5, 100, 100, 100]


def test_a_time_after_now_is_clamped_to_now():
    assert dated([{"valid_from": 5000}, {}], 9000, 1000)[0]["valid_from"] == 1000
    assert dated([{}], 9000, 1000)[0]["valid_from"] == 1000


def test_the_session_time_is_the_segment_s_last_event_timestamp():
    transcript = read_transcript(CLAUDE / "short.jsonl")
    assert session_time(transcript) == event_times(CLAUDE / "short.jsonl")[1]


def test_without_timestamps_the_session_time_is_the_file_s_mtime(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("User: keep the API small.\n")
    os.utime(path, (1_700_000_000, 1_700_000_000))
    assert session_time(read_transcript(path, "text")) == 1_700_000_000_000


# --- real sessions through capture and `facts --as-of` -------------------------------------------

@pytest.mark.parametrize("fixture", DATED_FIXTURES, ids=lambda p: p.name[:30])
def test_facts_from_an_old_session_are_valid_from_that_session_not_from_capture(
        capsys, db, fixture):
    code, report, _ = capture(capsys, str(fixture), "--no-curate")
    assert code == 0 and report["counts"].get("created", 0) > 0
    first, last = event_times(fixture)
    facts = all_facts(db)
    assert facts and all(first <= f["t_valid"] <= last for f in facts)
    for fact in facts[:5]:
        subject, scope = fact["subject"]["name"], fact["subject"]["scope"]
        assert facts_as_of(capsys, subject, scope, first - DAY) == []
        after = facts_as_of(capsys, subject, scope, last + DAY)
        assert fact["id"] in {f["id"] for f in after}


@pytest.mark.parametrize("fixture", EVERY_FIXTURE, ids=lambda p: p.name[:30])
def test_every_agent_s_timestamps_date_its_facts(capsys, db, fixture, dated_probe):
    cwd = ["--cwd", REWRITTEN[fixture.name]] if fixture.name in REWRITTEN else []
    code, report, _ = capture(capsys, str(fixture), "--extractor", "probe", "--no-curate", *cwd)
    assert code == 0 and report["counts"].get("created", 0) >= 1
    first, last = event_times(fixture)
    facts = all_facts(db)
    assert all(first <= f["t_valid"] <= last for f in facts)
    tested_by = next(f for f in facts if f["predicate"] == "core/tested-by")
    assert tested_by["t_valid"] == last
    scope = tested_by["subject"]["scope"]
    assert facts_as_of(capsys, "api", scope, first - DAY) == []
    assert tested_by["id"] in {f["id"] for f in facts_as_of(capsys, "api", scope, last + DAY)}


def test_a_re_capture_of_the_same_session_reinforces_and_keeps_its_times(capsys, tmp_path, db):
    fixture = CLAUDE / "full-session-four.jsonl"
    first, second = tmp_path / "a" / fixture.name, tmp_path / "b" / fixture.name
    for path in (first, second):
        path.parent.mkdir()
        shutil.copy(fixture, path)
    _, one, _ = capture(capsys, str(first), "--no-curate")
    before = {f["id"]: f["t_valid"] for f in all_facts(db)}
    _, two, _ = capture(capsys, str(second), "--no-curate")  # moved: read again from 0
    assert two["segment"]["from"] == 0
    assert set(two["counts"]) == {"reinforced"}
    assert two["counts"]["reinforced"] == one["counts"]["created"]
    assert {f["id"]: f["t_valid"] for f in all_facts(db)} == before


def test_each_fact_is_valid_from_the_line_that_taught_it(capsys, tmp_path, db, dated_probe):
    session = Session(tmp_path / "s.jsonl", tmp_path)
    session.write(session.prompt("alpha"), session.prompt("beta"))
    _, report, _ = capture(capsys, str(session.path), "--extractor", "probe", "--no-curate")
    history = {f["object_lit"] or f["object_ref"]["name"]: f for f in all_facts(db)}
    stamps = [e.timestamp for e in read_transcript(session.path).events]
    assert history["alpha"]["t_valid"] == stamps[0]
    assert history["beta"]["t_valid"] == stamps[1]
    assert history["alpha"]["t_invalid"] == stamps[1]  # a value changed within the session
    assert history["pytest"]["t_valid"] == stamps[1]  # no time of its own: the session's
    assert report["counts"] == {"created": 2, "superseded": 1}


def replay_sessions(tmp_path: Path) -> tuple[Session, Session]:
    """An OLD session (January) and a NEWER one (March) that changed the status."""
    old = Session(tmp_path / "old.jsonl", tmp_path, "old")
    new = Session(tmp_path / "new.jsonl", tmp_path, "new")
    old.write({**old.prompt("alpha"), "timestamp": "2026-01-10T10:00:00.000Z"})
    new.write({**new.prompt("beta"), "timestamp": "2026-03-10T10:00:00.000Z"})
    return old, new


def status_as_of(capsys, scope: str, iso: str) -> list[str]:
    capsys.readouterr()
    main(["facts", "api", "--entity-scope", scope, "--as-of", iso, "--json",
          "--predicate", "core/has-status"])
    return sorted(f["object"] for f in json.loads(capsys.readouterr().out)["facts"])


def test_an_old_session_replayed_after_a_newer_one_never_overwrites_the_newer_value(
        capsys, tmp_path, db, dated_probe):
    old, new = replay_sessions(tmp_path)
    capture(capsys, str(new.path), "--extractor", "probe", "--no-curate")
    _, report, _ = capture(capsys, str(old.path), "--extractor", "probe", "--no-curate")
    assert report["counts"]["flagged"] == 1  # left for review, not superseding
    scope = report["project"]
    assert status_as_of(capsys, scope, "2026-01-05") == []
    assert status_as_of(capsys, scope, "2026-02-01") == ["alpha"]
    assert "beta" in status_as_of(capsys, scope, "2026-04-01")


def test_sessions_captured_in_order_give_a_clean_history(capsys, tmp_path, db, dated_probe):
    old, new = replay_sessions(tmp_path)
    capture(capsys, str(old.path), "--extractor", "probe", "--no-curate")
    _, report, _ = capture(capsys, str(new.path), "--extractor", "probe", "--no-curate")
    assert report["counts"]["superseded"] == 1
    scope = report["project"]
    assert status_as_of(capsys, scope, "2026-02-01") == ["alpha"]
    assert status_as_of(capsys, scope, "2026-04-01") == ["beta"]


def test_an_old_session_re_captured_after_its_value_changed_adds_no_live_copy(
        capsys, tmp_path, db, dated_probe):
    old, new = replay_sessions(tmp_path)
    capture(capsys, str(old.path), "--extractor", "probe", "--no-curate")
    capture(capsys, str(new.path), "--extractor", "probe", "--no-curate")
    moved = tmp_path / "moved" / "old.jsonl"
    moved.parent.mkdir()
    shutil.copy(old.path, moved)
    _, report, _ = capture(capsys, str(moved), "--session", "old", "--extractor", "probe",
                           "--no-curate")
    assert report["segment"]["from"] == 0
    assert report["counts"] == {"reinforced": 2}
    assert status_as_of(capsys, report["project"], "2026-04-01") == ["beta"]
    assert status_as_of(capsys, report["project"], "2026-02-01") == ["alpha"]
