"""Reading sidecar logs from the end, across rotations, raw lines and filters, on real files."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from claimgraph import logs
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.timeutil import from_iso

NOW = from_iso("2026-03-01T12:00:00Z")


def line(n: int, event: str = "capture.report", level: str = "info", **fields) -> str:
    ts = f"2026-03-01T{n // 60:02d}:{n % 60:02d}:00.000Z"
    return json.dumps({"ts": ts, "level": level, "event": event, "pid": 1, **fields}) + "\n"


def events(entries) -> list:
    return [e.event["event"] if e.event else ("raw", e.raw) for e in entries]


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "claims.db.capture.log"


def test_last_n_newest_shown_last_and_zero_means_all(log: Path) -> None:
    log.write_text("".join(line(n, f"e{n}") for n in range(30)))
    got = logs.tail({"capture": log}, logs.Filters(), 3)
    assert events(got) == ["e27", "e28", "e29"]
    assert len(logs.tail({"capture": log}, logs.Filters(), 0)) == 30


def test_reads_across_block_boundaries(log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logs, "BLOCK", 7)
    log.write_text("".join(line(n, f"e{n}", note="x" * n) for n in range(12)))
    assert events(logs.tail({"capture": log}, logs.Filters(), 0)) == [f"e{n}" for n in range(12)]


def test_rotated_files_are_read_oldest_last_only_when_needed(log: Path) -> None:
    log.with_name(log.name + ".2").write_text(line(1, "oldest"))
    log.with_name(log.name + ".1").write_text(line(2, "older"))
    log.write_text(line(3, "live-a") + line(4, "live-b"))
    assert events(logs.tail({"capture": log}, logs.Filters(), 2)) == ["live-a", "live-b"]
    assert events(logs.tail({"capture": log}, logs.Filters(), 0)) == [
        "oldest", "older", "live-a", "live-b"]


def test_raw_traceback_lines_are_kept(log: Path) -> None:
    log.write_text(line(1, "curate.started") + "Traceback (most recent call last):\n"
                   '  File "x.py", line 1\nValueError: boom\n')
    got = logs.tail({"curate": log}, logs.Filters(), 0)
    assert events(got)[1:] == [("raw", "Traceback (most recent call last):"),
                               ("raw", '  File "x.py", line 1'), ("raw", "ValueError: boom")]
    assert got[1].as_json() == {"log": "curate", "raw": "Traceback (most recent call last):"}


def test_truncated_last_line_is_tolerated(log: Path) -> None:
    log.write_text(line(1, "whole") + '{"ts": "2026-03-01T00:0')
    got = logs.tail({"capture": log}, logs.Filters(), 0)
    assert events(got)[0] == "whole"
    assert got[1].truncated and got[1].raw == '{"ts": "2026-03-01T00:0'
    assert not got[0].truncated


def test_invalid_utf8_does_not_break_reading(log: Path) -> None:
    log.write_bytes(line(1, "ok").encode() + b"\xff\xfe garbage\n")
    assert events(logs.tail({"capture": log}, logs.Filters(), 0))[0] == "ok"


def test_missing_log_reads_as_empty(tmp_path: Path) -> None:
    assert logs.tail({"daemon": tmp_path / "nope.log"}, logs.Filters(), 5) == []


def test_level_filter_is_a_minimum_and_raw_lines_count_as_errors(log: Path) -> None:
    log.write_text(line(1, "a", "debug") + line(2, "b", "warning") + line(3, "c", "error")
                   + "Traceback (most recent call last):\n")
    got = logs.tail({"capture": log}, logs.Filters(level="warning"), 0)
    assert events(got) == ["b", "c", ("raw", "Traceback (most recent call last):")]


@pytest.mark.parametrize("pattern, expected", [
    ("capture", ["capture.report", "capture.failed"]),
    ("capture.report", ["capture.report"]),
    ("*.failed", ["capture.failed", "curate.failed"]),
    ("hook.?pawned", ["hook.spawned"]),
])
def test_event_filter_prefix_or_glob(log: Path, pattern: str, expected: list) -> None:
    log.write_text("".join(line(n, e) for n, e in enumerate(
        ["capture.report", "capture.failed", "curate.failed", "hook.spawned"])))
    assert events(logs.tail({"capture": log}, logs.Filters(event=pattern), 0)) == expected


def test_session_and_run_filters(log: Path) -> None:
    log.write_text(line(1, "a", session="s1", run_id="cap-1")
                   + line(2, "b", session="s2", run_id="cap-2") + "raw line\n")
    assert events(logs.tail({"capture": log}, logs.Filters(session="s2"), 0)) == ["b"]
    assert events(logs.tail({"capture": log}, logs.Filters(run="cap-1"), 0)) == ["a"]


def test_since_filter_and_raw_lines_take_the_time_of_the_event_before(log: Path) -> None:
    log.write_text("orphan raw\n" + line(60, "old") + "old raw\n" + line(600, "new")
                   + "new raw\n")
    since = logs.parse_since("2026-03-01T05:00", NOW)
    got = logs.tail({"capture": log}, logs.Filters(since_ms=since), 0)
    assert events(got) == ["new", ("raw", "new raw")]


@pytest.mark.parametrize("text, ago_ms", [("30m", 1_800_000), ("1h", 3_600_000),
                                          ("2d", 172_800_000), ("45s", 45_000)])
def test_since_durations(text: str, ago_ms: int) -> None:
    assert logs.parse_since(text, NOW) == NOW - ago_ms


@pytest.mark.parametrize("bad", ["3x", "yesterday", "1 hour ago", ""])
def test_bad_since_names_the_fix(bad: str) -> None:
    with pytest.raises(ClaimgraphError) as caught:
        logs.parse_since(bad, NOW)
    assert caught.value.type == "invalid-since" and "30m" in caught.value.hint


def test_bad_level_names_the_levels() -> None:
    with pytest.raises(ClaimgraphError, match="not a log level"):
        logs.parse_level("loud")


def test_all_logs_merge_by_time(tmp_path: Path) -> None:
    capture, curate = tmp_path / "a.log", tmp_path / "b.log"
    capture.write_text(line(1, "c1") + line(3, "c3"))
    curate.write_text(line(2, "u2") + line(4, "u4"))
    got = logs.tail({"capture": capture, "curate": curate}, logs.Filters(), 3)
    assert events(got) == ["u2", "c3", "u4"]
    assert [e.log for e in got] == ["curate", "capture", "curate"]


def append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as out:
        out.write(text)


def collect_follow(log: Path, actions, timeout_s: float = 5.0) -> list:
    """Run follow() in a thread while ``actions`` (run here) append and rotate the log."""
    follower = logs.Follower("capture", log)
    seen: list = []
    stop = threading.Event()
    worker = threading.Thread(target=lambda: seen.extend(
        logs.follow([follower], logs.Filters(), 0.05, stop.is_set)))
    worker.start()
    try:
        actions(seen)
    finally:
        stop.set()
        worker.join(timeout_s)
    assert not worker.is_alive()
    return events(seen)


def wait_for(predicate, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_follow_picks_up_appends_partial_lines_and_rotation(log: Path) -> None:
    log.write_text(line(1, "before"))

    def actions(seen: list) -> None:
        append(log, line(2, "appended"))
        wait_for(lambda: len(seen) == 1)
        append(log, line(3, "split")[:10])
        time.sleep(0.2)
        assert len(seen) == 1  # half a line waits for its newline
        append(log, line(3, "split")[10:] + line(4, "late-in-old-file"))
        os.rename(log, log.with_name(log.name + ".1"))
        append(log, line(5, "new-file"))
        wait_for(lambda: len(seen) == 4)

    assert collect_follow(log, actions) == ["appended", "split", "late-in-old-file", "new-file"]


def test_follow_waits_for_a_log_that_does_not_exist_yet(log: Path) -> None:
    def actions(seen: list) -> None:
        time.sleep(0.1)
        append(log, line(1, "first"))
        wait_for(lambda: len(seen) == 1)

    assert collect_follow(log, actions) == ["first"]


def test_tail_stops_where_the_follower_starts(log: Path) -> None:
    log.write_text(line(1, "a"))
    follower = logs.Follower("capture", log)
    append(log, line(2, "b"))
    ends = {"capture": follower.offset}
    assert events(logs.tail({"capture": log}, logs.Filters(), 0, ends)) == ["a"]
    assert events(follower.poll(NOW)) == ["b"]
    follower.close()
