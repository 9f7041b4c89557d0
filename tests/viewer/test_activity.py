"""The Activity page's reading of the logs: runs, failures first, durations, the per-day plot."""

from __future__ import annotations

import json
from pathlib import Path

from claimgraph import logs
from claimgraph.logic.timeutil import DAY_MS, from_iso, to_iso
from claimgraph.viewer import activity

NOW = from_iso("2026-03-10T12:00:00Z")


def write(path: Path, *events: dict) -> None:
    with open(path, "a", encoding="utf-8") as out:
        for event in events:
            out.write(json.dumps(event) + "\n")


def at(days_ago: float, **fields) -> dict:
    return {"ts": to_iso(NOW - int(days_ago * DAY_MS)), "level": "info", **fields}


def test_runs_put_failures_first_then_the_newest(tmp_path):
    paths = logs.log_paths(tmp_path / "claims.db")
    write(paths["capture"],
          at(3, event="capture.report", status="captured", counts={"created": 4}, project="p",
             run_id="cap-1", duration_ms=120),
          at(2, event="capture.failed", level="error", status="error", run_id="cap-2",
             message="the transcript is not JSON"),
          at(1, event="capture.report", status="captured", counts={"created": 2}, project="p",
             run_id="cap-3", duration_ms=90))
    write(paths["curate"],
          at(1.5, event="curate.started", run_id="cur-1"),
          {**at(1.5, event="curate.result", run_id="cur-1", status="ok",
                stages={"decay": {"status": "ok", "counts": {"dormant": 3}}}),
           "ts": to_iso(NOW - int(1.5 * DAY_MS) + 750)})
    write(paths["daemon"], at(0.5, event="daemon.swept", found=2, captured=1, failed=0))
    found = activity.runs(paths, NOW)
    assert [(r["log"], r["run_id"]) for r in found][:2] == [("capture", "cap-2"),
                                                            ("daemon", None)]
    assert found[0]["failed"] and found[0]["error"] == "the transcript is not JSON"
    curate = next(r for r in found if r["log"] == "curate")
    assert curate["duration_ms"] == 750 and curate["counts"] == "decay ok: dormant 3"
    assert [r["run_id"] for r in found if r["log"] == "capture"] == ["cap-2", "cap-3", "cap-1"]
    assert activity.summary(found) == {"runs": 5, "failed": 1}


def test_the_plot_counts_facts_added_and_decayed_per_day(tmp_path):
    paths = logs.log_paths(tmp_path / "claims.db")
    write(paths["capture"], at(40, event="capture.report", counts={"created": 100}),
          at(2, event="capture.report", counts={"created": 4}),
          at(2, event="capture.report", counts={"created": 1, "reinforced": 9}),
          at(0, event="capture.report", counts={"created": 2}))
    write(paths["curate"], at(1, event="curate.result", status="ok",
                              stages={"decay": {"status": "ok", "counts": {"dormant": 5}}}))
    days = activity.per_day(paths, NOW, days=5)
    assert [d["day"] for d in days] == ["2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09",
                                        "2026-03-10"]
    assert [(d["added"], d["decayed"]) for d in days] == [(0, 0), (0, 0), (5, 0), (0, 5), (2, 0)]
    assert max(d["added_px"] for d in days) == activity.PLOT_HEIGHT


def test_the_last_capture_of_each_project_is_its_newest(tmp_path):
    path = logs.log_paths(tmp_path / "claims.db")["capture"]
    write(path, at(3, event="capture.report", status="captured", project="a", run_id="old"),
          at(1, event="capture.failed", level="error", status="error", project="a", run_id="new"),
          at(2, event="capture.report", status="captured", project="b", run_id="b1"))
    last = activity.last_captures(path, NOW)
    assert last["a"]["run_id"] == "new" and last["a"]["failed"]
    assert last["b"]["status"] == "captured"


def test_missing_logs_mean_no_runs(tmp_path):
    paths = logs.log_paths(tmp_path / "claims.db")
    assert activity.runs(paths, NOW) == []
    assert sum(d["added"] for d in activity.per_day(paths, NOW)) == 0
