"""The Activity page: capture, curator and daemon runs read back from the sidecar logs.

One run is one result line (``capture.report``, ``curate.result``, ``daemon.swept``...); a
curator run's duration is measured from its ``curate.started`` line, as ``status`` measures
it. Logs grow without bound between rotations, so only the newest ``SCAN_LINES`` lines of each
log (within ``WINDOW_DAYS``) are read, newest first, never a whole file. Failures sort first:
they are what a person opens this page for.

The plot counts facts added (``counts.created`` of each capture) and facts decayed (the decay
stage's ``dormant`` of each curator run) per UTC day.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator

from claimgraph import logs
from claimgraph.health import status
from claimgraph.logic.timeutil import DAY_MS, to_date

SCAN_LINES = 5_000
WINDOW_DAYS = 30
MAX_RUNS = 200
PLOT_DAYS = 30
PLOT_HEIGHT = 80
RESULTS = {
    "capture": ("capture.report", "capture.failed"),
    "curate": status.CURATE_RESULTS,
    "daemon": ("daemon.started", "daemon.stopped", "daemon.swept", "daemon.capture-timeout"),
}
BAD_STATUSES = status.FAILED_STATUSES | {"partial", "lease-lost", "timeout"}


def recent(log: str, path: Path, now_ms: int) -> Iterator[logs.Entry]:
    """The log's parsed lines, newest first, within the window and the line cap."""
    window = logs.Filters(since_ms=now_ms - WINDOW_DAYS * DAY_MS)
    for n, entry in enumerate(logs.entries_backward(log, path)):
        if n >= SCAN_LINES or window.past_window(entry):
            return
        if entry.event is not None and window.match(entry):
            yield entry


def runs(paths: dict[str, Path], now_ms: int) -> list[dict[str, Any]]:
    """Every log's runs, failures first, then newest first."""
    found = [run for log in RESULTS if log in paths for run in log_runs(log, paths[log], now_ms)]
    found.sort(key=lambda r: (not r["failed"], -(r["ts_ms"] or 0)))
    return found[:MAX_RUNS]


def log_runs(log: str, path: Path, now_ms: int) -> list[dict[str, Any]]:
    results, started = [], {}
    for entry in recent(log, path, now_ms):
        data = entry.event or {}
        if data.get("event") in RESULTS[log]:
            results.append((entry, data))
        elif data.get("event") == "curate.started" and data.get("run_id"):
            started[data["run_id"]] = entry.ts_ms
    return [run_view(log, entry, data, started.get(data.get("run_id"))) for entry, data in results]


def run_view(log: str, entry: logs.Entry, data: dict[str, Any],
             started_ms: int | None) -> dict[str, Any]:
    result = str(data.get("status") or data.get("event", "").split(".", 1)[-1])
    took = data.get("duration_ms")
    if took is None and started_ms is not None and entry.ts_ms is not None:
        took = max(0, entry.ts_ms - started_ms)
    failed = status.is_failure(entry) or result in BAD_STATUSES
    return {"log": log, "event": data.get("event"), "ts_ms": entry.ts_ms, "status": result,
            "failed": failed, "duration_ms": took, "counts": run_counts(log, data),
            "project": data.get("project"), "session": data.get("session"),
            "run_id": data.get("run_id"), "error": run_error(data)}


def run_counts(log: str, data: dict[str, Any]) -> str:
    """What the run did, in a few words: ``created 4``; ``decay: dormant 3``."""
    if log == "capture":
        return _pairs(data.get("counts") or {})
    if log == "curate":
        stages = data.get("stages") or {}
        return "; ".join(f"{name} {stage.get('status')}" + (
            f": {_pairs(_numbers(stage.get('counts') or {}))}" if _numbers(stage.get("counts") or {})
            else "") for name, stage in stages.items() if isinstance(stage, dict))
    return _pairs(_numbers({k: v for k, v in data.items() if k not in ("pid", "ts")}))


def _numbers(counts: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool) and v}


def _pairs(counts: dict[str, Any]) -> str:
    return ", ".join(f"{key} {value}" for key, value in counts.items())


def run_error(data: dict[str, Any]) -> str | None:
    errors = data.get("errors")
    text = data.get("error") or data.get("message") or data.get("reason")
    if not text and isinstance(errors, list) and errors:
        text = "; ".join(str(e.get("message", e) if isinstance(e, dict) else e) for e in errors)
    return str(text) if text else None


def per_day(paths: dict[str, Path], now_ms: int, days: int = PLOT_DAYS) -> list[dict[str, Any]]:
    """Facts added and decayed per UTC day over the last ``days`` days, oldest first, with bar
    heights in pixels (the tallest bar of either series is ``PLOT_HEIGHT``)."""
    first = now_ms - (days - 1) * DAY_MS
    keys = [to_date(first + n * DAY_MS) for n in range(days)]
    added = dict.fromkeys(keys, 0)
    decayed = dict.fromkeys(keys, 0)
    for log, counter, amount in (("capture", added, _added), ("curate", decayed, _decayed)):
        for entry in recent(log, paths.get(log, Path("/nonexistent")), now_ms):
            key = to_date(entry.ts_ms) if entry.ts_ms is not None else None
            if key in counter:
                counter[key] += amount(entry.event or {})
    top = max([1, *added.values(), *decayed.values()])
    return [{"day": key, "added": added[key], "decayed": decayed[key],
             "added_px": round(added[key] * PLOT_HEIGHT / top),
             "decayed_px": round(decayed[key] * PLOT_HEIGHT / top)} for key in keys]


def _added(data: dict[str, Any]) -> int:
    if data.get("event") != "capture.report":
        return 0
    return int((data.get("counts") or {}).get("created") or 0)


def _decayed(data: dict[str, Any]) -> int:
    if data.get("event") != "curate.result":
        return 0
    decay = (data.get("stages") or {}).get("decay") or {}
    return int((decay.get("counts") or {}).get("dormant") or 0)


def last_captures(path: Path, now_ms: int) -> dict[str, dict[str, Any]]:
    """project id -> its newest capture run (within the scan), for the projects page."""
    found: dict[str, dict[str, Any]] = {}
    for entry in recent("capture", path, now_ms):
        data = entry.event or {}
        project = data.get("project")
        if data.get("event") in RESULTS["capture"] and project and project not in found:
            found[project] = run_view("capture", entry, data, None)
    return found


def summary(found: Iterable[dict[str, Any]]) -> dict[str, int]:
    runs_ = list(found)
    return {"runs": len(runs_), "failed": sum(1 for r in runs_ if r["failed"])}
