"""The sweep: what counts as uncaptured, and that racing sweeps capture a session once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from claimgraph.daemon.settings import DaemonSettings
from claimgraph.daemon.sweep import Sweeper, find_candidates, is_due
from claimgraph.errors import ClaimgraphError

from daemon_helpers import cli, episodes, write_session

NOW_IDLE = {"CLAIMGRAPH_DAEMON_IDLE_MINUTES": "0", "CLAIMGRAPH_DAEMON_SPOOL_AGE_SECONDS": "0"}


def sweep_process() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "claimgraph", "daemon", "sweep", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **NOW_IDLE})


def test_a_session_whose_session_end_never_fired_is_captured_once_by_two_racing_sweeps(
        projects, db, tmp_path):
    transcript = write_session(projects, tmp_path / "proj", "5e55-never-ended")
    racers = [sweep_process() for _ in range(2)]
    summaries = [json.loads(p.communicate(timeout=120)[0]) for p in racers]
    assert all(p.returncode == 0 for p in racers)
    assert episodes(db) == [f"claude-code:5e55-never-ended@0-{transcript.stat().st_size}"]
    assert sum(s.get("captured", 0) for s in summaries) == 1
    again = json.loads(cli("daemon", "sweep", "--json", env=NOW_IDLE).stdout)
    assert again == {"found": 0}


def test_a_resumed_session_is_swept_again_from_its_mark(projects, db, tmp_path):
    transcript = write_session(projects, tmp_path / "proj", "resumed")
    assert json.loads(cli("daemon", "sweep", "--json", env=NOW_IDLE).stdout)["captured"] == 1
    first_end = transcript.stat().st_size
    with open(transcript, "a", encoding="utf-8") as out:
        out.write(transcript.read_text(encoding="utf-8").splitlines()[0]
                  .replace("u-1", "u-3").replace("uv instead of pip", "ruff for linting") + "\n")
    summary = json.loads(cli("daemon", "sweep", "--json", env=NOW_IDLE).stdout)
    assert summary["found"] == 1
    assert f"claude-code:resumed@{first_end}-{transcript.stat().st_size}" in episodes(db)


def test_our_own_model_calls_sessions_are_skipped(projects, db, tmp_path):
    write_session(projects, Path("/tmp/claimgraph-llm-x1y2"), "ours")
    theirs = write_session(projects, tmp_path / "proj", "theirs")
    found = find_candidates(db, os.environ, DaemonSettings(idle_minutes=0), time.time())
    assert [c.path for c in found] == [str(theirs)]


def test_sessions_are_swept_oldest_first_so_valid_time_only_moves_forward(
        projects, db, tmp_path):
    newer = write_session(projects, tmp_path / "a-proj", "aaa-newer")
    older = write_session(projects, tmp_path / "z-proj", "zzz-older")
    os.utime(older, (time.time() - 7200, time.time() - 7200))
    os.utime(newer, (time.time() - 3600, time.time() - 3600))
    found = find_candidates(db, os.environ, DaemonSettings(idle_minutes=0), time.time())
    assert [c.session for c in found] == ["zzz-older", "aaa-newer"]


def test_codex_rollouts_are_found_under_codex_home(db, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    day = tmp_path / "codex" / "sessions" / "2026" / "03" / "01"
    day.mkdir(parents=True)
    rollout = day / "rollout-2026-03-01T10-00-00-abc.jsonl"
    meta = {"timestamp": "2026-03-01T10:00:00Z", "type": "session_meta",
            "payload": {"id": "abc", "cwd": str(tmp_path)}}
    rollout.write_text(json.dumps(meta) + "\n", encoding="utf-8")
    ours = day / "rollout-2026-03-01T10-00-01-def.jsonl"
    ours.write_text(json.dumps({**meta, "payload": {"id": "def", "cwd": "/tmp/claimgraph-llm-q"}})
                    + "\n", encoding="utf-8")
    found = find_candidates(db, os.environ, DaemonSettings(idle_minutes=0), time.time())
    assert [(c.agent, c.session) for c in found] == [("codex", "abc")]  # as its hooks say


def test_a_recently_written_transcript_is_left_to_its_session(projects, db, tmp_path):
    transcript = write_session(projects, tmp_path / "proj", "busy")
    assert not is_due(transcript, None, time.time(), idle_s=600)
    assert is_due(transcript, None, time.time() + 601, idle_s=600)
    mark = {"transcript": str(transcript), "offset": transcript.stat().st_size}
    assert not is_due(transcript, mark, time.time() + 601, idle_s=600)
    assert is_due(transcript, {**mark, "transcript": "/elsewhere.jsonl"}, time.time() + 601, 600)


def test_a_young_spool_file_is_left_to_its_hooks_capture(db, tmp_path):
    spool = Path(f"{db}.spool")
    spool.mkdir(parents=True)
    (spool / "claude-code-s.json").write_text("{}", encoding="utf-8")
    settings = DaemonSettings(spool_age_seconds=60)
    assert find_candidates(db, os.environ, settings, time.time()) == []
    assert len(find_candidates(db, os.environ, settings, time.time() + 61)) == 1


def test_a_failing_capture_is_counted_not_raised(db, tmp_path):
    spool = Path(f"{db}.spool")
    spool.mkdir(parents=True)
    (spool / "claude-code-broken.json").write_text("not json", encoding="utf-8")
    summary = Sweeper(db, os.environ, DaemonSettings(spool_age_seconds=0)).run()
    assert summary == {"found": 1, "failed": 1}
    assert '"capture.failed"' in Path(f"{db}.capture.log").read_text(encoding="utf-8")


def test_bad_settings_are_refused_by_name():
    with pytest.raises(ClaimgraphError) as err:
        DaemonSettings.from_environ({"CLAIMGRAPH_DAEMON_IDLE_MINUTES": "soon"})
    assert "CLAIMGRAPH_DAEMON_IDLE_MINUTES" in err.value.message
    assert DaemonSettings.from_environ({"CLAIMGRAPH_DAEMON_LOG_KEEP": "2"}).log_keep == 2


def test_gemini_sessions_are_found_under_gemini_cli_home_by_their_session_id(
        db, tmp_path, monkeypatch):
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "g"))
    chats = tmp_path / "g" / ".gemini" / "tmp" / "proj" / "chats"
    (chats / "5e55-full-id").mkdir(parents=True)
    session = chats / "session-2026-12-02T18-15-5e55abcd.jsonl"
    session.write_text(json.dumps({"sessionId": "5e55abcd-full-id", "projectHash": "0" * 64})
                       + "\n" + json.dumps({"id": "u1", "type": "user", "content": "hi"}) + "\n")
    legacy = chats / "session-2025-10-27T19-55-981c87cb.json"
    legacy.write_text(json.dumps({"sessionId": "981c87cb-old", "messages": []}, indent=2))
    (chats / "5e55-full-id" / "sub-1.jsonl").write_text('{"sessionId": "sub-1"}\n')
    ours = tmp_path / "g" / ".gemini" / "tmp" / "claimgraph-llm-q" / "chats"
    ours.mkdir(parents=True)
    (ours / "session-2026-12-02T18-16-00000000.jsonl").write_text('{"sessionId": "x"}\n')
    found = find_candidates(db, os.environ, DaemonSettings(idle_minutes=0), time.time())
    assert sorted((c.agent, c.session, Path(c.path).name) for c in found) == [
        ("gemini", "5e55abcd-full-id", session.name), ("gemini", "981c87cb-old", legacy.name)]


def test_a_codex_session_the_sweep_captured_under_its_file_name_is_not_captured_again(
        db, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    day = tmp_path / "codex" / "sessions" / "2026" / "03" / "01"
    day.mkdir(parents=True)
    rollout = day / "rollout-2026-03-01T10-00-00-abc.jsonl"
    rollout.write_text(json.dumps({"type": "session_meta", "payload": {"id": "abc",
                                                                        "cwd": str(tmp_path)}})
                       + "\n", encoding="utf-8")
    from claimgraph.opening import open_store
    store = open_store(db, create=True)
    try:
        store.set_mark(f"capture:codex:{rollout.stem}",
                       {"transcript": str(rollout), "offset": rollout.stat().st_size})
    finally:
        store.close()
    assert find_candidates(db, os.environ, DaemonSettings(idle_minutes=0), time.time()) == []
