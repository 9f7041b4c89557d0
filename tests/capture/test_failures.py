"""Issue 10 §2: a session that keeps failing backs off, is given up (poisoned), shows in
``status`` and is captured again by ``capture --retry``; the crash log stays bounded; a spool
that can never succeed is given up; a symlink out of the agent's directories is refused."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from claimgraph.capture import failures
from claimgraph.capture import run as capture_run
from claimgraph.capture.failures import MAX_FAILURES, FailureLedger, backoff_s
from claimgraph.cli.main import main
from claimgraph.daemon.rotate import append_rotated, generation
from claimgraph.daemon.settings import DaemonSettings
from claimgraph.daemon.sweep import find_candidates
from claimgraph.errors import ClaimgraphError
from claimgraph.logsetup import reset_logging
from claimgraph.sidecar import Sidecars

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_run import Session, capture, spool_payload, working_session  # noqa: E402

SECRET = "ghp_" + "Q" * 36


@pytest.fixture(autouse=True)
def _quiet_logging():
    yield
    reset_logging()


@pytest.fixture
def db() -> Path:
    return Path(os.environ["CLAIMGRAPH_DB"])


class Fault:
    """A bug inside the pass (injected; everything around it is real) until ``fixed``."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.fixed = False
        self.real = capture_run.capture

    def __call__(self, request, options):
        if self.fixed:
            return self.real(request, options)
        self.calls.append(request.session)
        raise RuntimeError(f"boom while reading, token={SECRET}")


@pytest.fixture
def broken_capture(monkeypatch) -> Fault:
    fault = Fault()
    monkeypatch.setattr(capture_run, "capture", fault)
    return fault


def failure_line(err: str) -> dict:
    return [json.loads(line) for line in err.splitlines() if '"capture.failed"' in line][-1]


def test_each_failure_is_counted_until_the_session_is_poisoned_and_left_alone(
        capsys, tmp_path, db, broken_capture):
    session = working_session(tmp_path / "s1.jsonl", tmp_path)
    for n in range(1, MAX_FAILURES + 1):
        code, _, err = capture(capsys, str(session.path), "--no-curate")
        line = failure_line(err)
        assert (code, line["type"], line["failures"]) == (1, "internal-error", n)
        assert line["poisoned"] is (n == MAX_FAILURES)
    code, report, _ = capture(capsys, str(session.path), "--no-curate")
    assert (code, report["status"]) == (0, "poisoned")
    assert "--retry s1" in report["warnings"][0]
    assert len(broken_capture.calls) == MAX_FAILURES  # the poisoned one was not tried again
    crash_log = Sidecars(db).crash_log.read_text()
    assert crash_log.count("--- capture") == MAX_FAILURES and SECRET not in crash_log


def test_status_names_a_poisoned_session_and_retry_captures_it(capsys, tmp_path, db,
                                                               broken_capture):
    session = working_session(tmp_path / "s2.jsonl", tmp_path)
    for _ in range(MAX_FAILURES):
        capture(capsys, str(session.path), "--no-curate")
    capsys.readouterr()
    assert main(["status", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    [poisoned] = report["poisoned"]
    assert (poisoned["session"], poisoned["failures"]) == ("s2", MAX_FAILURES)
    assert any("--retry s2" in item["what_to_do"] for item in report["needs_attention"])
    broken_capture.fixed = True
    code, report, err = capture(capsys, "--retry", "s2", "--no-curate")
    assert (code, report["status"]) == (0, "captured"), err
    assert report["transcript"] == str(session.path)
    assert FailureLedger(db).entries() == {}


def test_retry_of_an_unknown_session_says_what_to_do(capsys):
    code, _, err = capture(capsys, "--retry", "nobody")
    assert code == 1 and '"retry-unknown"' in err


def test_a_transient_failure_is_not_counted(capsys, tmp_path, db, monkeypatch):
    session = working_session(tmp_path / "s3.jsonl", tmp_path)

    def busy(request, options):
        raise ClaimgraphError("store-busy", "the store stayed locked", hint="try again")

    monkeypatch.setattr(capture_run, "capture", busy)
    code, _, err = capture(capsys, str(session.path), "--no-curate")
    assert code == 1 and "failures" not in failure_line(err)
    assert FailureLedger(db).entries() == {}


def test_a_success_clears_earlier_failures(capsys, tmp_path, db, broken_capture):
    session = working_session(tmp_path / "s4.jsonl", tmp_path)
    capture(capsys, str(session.path), "--no-curate")
    assert FailureLedger(db).get("capture:claude-code:s4")["failures"] == 1
    broken_capture.fixed = True
    code, report, _ = capture(capsys, str(session.path), "--no-curate")
    assert report["status"] == "captured" and FailureLedger(db).get("capture:claude-code:s4") is None


def test_the_backoff_doubles_up_to_its_cap():
    assert [backoff_s(n) for n in (1, 2, 3)] == [300, 600, 1200]
    assert backoff_s(50) == failures.BACKOFF_MAX_S


def claude_home(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
           "CODEX_HOME": str(tmp_path / "codex")}
    (tmp_path / "claude" / "projects" / "-work-app").mkdir(parents=True)
    return env


def test_the_sweep_waits_out_the_backoff_and_skips_a_poisoned_session(tmp_path, db):
    env = claude_home(tmp_path)
    path = tmp_path / "claude" / "projects" / "-work-app" / "sweepy.jsonl"
    working_session(path, tmp_path)
    settings = DaemonSettings(idle_minutes=0)
    ledger = FailureLedger(db)
    key = "capture:claude-code:sweepy"
    now = time.time() + 60
    assert [c.session for c in find_candidates(db, env, settings, now)] == ["sweepy"]
    ledger.record(key, {"agent": "claude-code", "session": "sweepy"}, "internal-error", "x", now)
    assert find_candidates(db, env, settings, now + 10) == []
    assert [c.session for c in find_candidates(db, env, settings, now + backoff_s(1))] == ["sweepy"]
    for _ in range(MAX_FAILURES):
        ledger.record(key, {"agent": "claude-code", "session": "sweepy"}, "internal-error", "x", now)
    assert find_candidates(db, env, settings, now + 10 * failures.BACKOFF_MAX_S) == []


def test_the_crash_log_is_rotated_when_it_grows(tmp_path):
    log = tmp_path / "claims.db.crash.log"
    for n in range(30):
        append_rotated(log, f"--- crash {n}\n" + "x" * 1000 + "\n", max_bytes=10_000, keep=2)
    assert log.stat().st_size < 11_000 and generation(log, 1).exists()
    assert generation(log, 2).exists() and not generation(log, 3).exists()
    assert "crash 29" in log.read_text()


def test_a_spool_naming_no_transcript_is_given_up_with_a_log_line(capsys, tmp_path, db):
    spool = spool_payload(db, tmp_path / "unused.jsonl", tmp_path, "no-path")
    spool.write_text(json.dumps({"agent": "claude-code", "session_id": "no-path",
                                 "transcript_path": None}))
    code, report, err = capture(capsys, "--spool", str(spool), "--no-curate")
    assert (code, report["status"]) == (0, "spool-given-up")
    assert not spool.exists() and '"capture.spool-given-up"' in err


# --- symlinks ----------------------------------------------------------------------------------

def test_a_symlink_out_of_the_agent_directory_is_refused_by_capture_and_sweep(
        capsys, tmp_path, db, monkeypatch):
    env = claude_home(tmp_path)
    outside = tmp_path / "private-notes.txt"
    outside.write_text("root:$6$saltsalt$hash:19000::\nnot a transcript\n")
    link = tmp_path / "claude" / "projects" / "-work-app" / "evil.jsonl"
    link.symlink_to(outside)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", env["CLAUDE_CONFIG_DIR"])
    code, _, err = capture(capsys, str(link), "--no-curate")
    assert code == 1 and '"transcript-symlink-outside"' in err and str(outside) in err
    settings = DaemonSettings(idle_minutes=0)
    assert find_candidates(db, env, settings, time.time() + 60) == []
    assert not Sidecars(db).evidence_dir.exists() or not any(Sidecars(db).evidence_dir.iterdir())


def test_a_symlink_given_explicitly_is_followed_and_the_report_says_where(capsys, tmp_path, db):
    session = working_session(tmp_path / "real.jsonl", tmp_path)
    link = tmp_path / "elsewhere.jsonl"
    link.symlink_to(session.path)
    code, report, _ = capture(capsys, str(link), "--no-curate")
    assert (code, report["status"]) == (0, "captured")
    assert f"is a symlink to {session.path}" in report["warnings"][0]


# --- a SessionEnd that was no session ---------------------------------------------------------

def test_a_spool_whose_transcript_was_never_written_is_dropped_quietly(
        capsys, tmp_path, db, monkeypatch):
    """`claude mcp list` fires SessionEnd naming a transcript it never writes: no failure,
    no spool left for every sweep to fail on again, nothing in status."""
    monkeypatch.setattr(capture_run, "LATE_TRANSCRIPT_S", 0.3)
    spool = spool_payload(db, tmp_path / "never-written.jsonl", tmp_path, "cli-only")
    code, report, err = capture(capsys, "--spool", str(spool), "--no-curate")
    assert (code, report["status"]) == (0, "no-session")
    assert not spool.exists() and '"capture.failed"' not in err
    assert FailureLedger(db).entries() == {}
    logged = [json.loads(line) for line in Path(f"{db}.capture.log").read_text().splitlines()]
    assert [(e["event"], e["level"]) for e in logged] == [("capture.report", "debug")]
    assert find_candidates(db, {}, DaemonSettings(idle_minutes=0), time.time() + 60) == []


def test_a_transcript_written_just_after_session_end_is_still_captured(
        capsys, tmp_path, db, monkeypatch):
    import threading
    monkeypatch.setattr(capture_run, "LATE_TRANSCRIPT_S", 10.0)
    late = tmp_path / "late.jsonl"
    spool = spool_payload(db, late, tmp_path, "late-one")
    writer = threading.Timer(0.5, lambda: working_session(late, tmp_path))
    writer.start()
    try:
        code, report, _ = capture(capsys, "--spool", str(spool), "--no-curate")
    finally:
        writer.join()
    assert (code, report["status"]) == (0, "captured")


def test_a_spooled_capture_failing_before_its_request_is_built_backs_off(capsys, tmp_path, db):
    """A transcript that cannot be opened fails before the request exists: the failure is
    still counted against the spool's session, so backoff and giving up start."""
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    spool = spool_payload(db, loop, tmp_path, "looping")
    code, _, err = capture(capsys, "--spool", str(spool), "--no-curate")
    assert code == 1 and '"transcript-symlink-loop"' in err
    entry = FailureLedger(db).get("capture:claude-code:looping")
    assert entry is not None and entry["failures"] == 1
    assert find_candidates(db, {}, DaemonSettings(idle_minutes=0), time.time() + 60) == []
    later = time.time() + backoff_s(1) + 1
    assert [c.path for c in find_candidates(db, {}, DaemonSettings(idle_minutes=0), later)] \
        == [str(spool)]
