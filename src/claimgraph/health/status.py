"""``claimgraph status``: health at a glance, gathered from files without changing anything.

Every section is read separately and tolerates what is missing (no store, no logs, no daemon,
an unreadable settings file), because status is what a person runs when something is already
wrong. Each problem found becomes a ``{problem, what_to_do}`` item, so the screen ends with
the next command to run rather than a diagnosis to work out.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from claimgraph import lease, logs
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.timeutil import to_iso
from claimgraph.opening import open_store
from claimgraph.sidecar import Sidecars

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Mapping

DAY_MS = 86_400_000
#: How far back into the logs status looks for the last run and the day's failures.
SCAN_LINES = 200_000
FAILED_STATUSES = frozenset({"failed", "error", "crashed"})
CAPTURE_RESULTS = ("capture.report", "capture.failed")
CURATE_RESULTS = ("curate.result", "curate.failed", "curate.crashed", "curate.stopped")
#: capture.model-failed and capture.model-budget: a pass that lost its model facts.
MODEL_PROBLEMS = "capture.model-"


def gather(db: Path, environ: Mapping[str, str], now_ms: int | None = None) -> dict[str, Any]:
    now_ms = time.time_ns() // 1_000_000 if now_ms is None else now_ms
    paths = logs.log_paths(db)
    report: dict[str, Any] = {
        "store": store_section(db, now_ms),
        "last_capture": last_run(paths["capture"], "capture", CAPTURE_RESULTS, "capture."),
        "last_curation": last_run(paths["curate"], "curate", CURATE_RESULTS, "curate.started"),
        "failures": failures(paths, now_ms),
        "model_extractor": model_problems(paths["capture"], now_ms),
        "poisoned": poisoned_sessions(db),
        "leases": {"write": lease_section(lease.write_lock_path(db), now_ms),
                   "curate": lease_section(lease.curate_lock_path(db), now_ms)},
        "daemon": daemon_state(db),
        "hooks": hooks_section(environ),
    }
    report["needs_attention"] = needs_attention(report)
    return report


def store_section(db: Path, now_ms: int | None = None) -> dict[str, Any]:
    section: dict[str, Any] = {"path": str(db), "exists": db.exists()}
    if not section["exists"]:
        return section
    try:
        Sidecars(db).check_version_stamp()
        store = open_store(db, read_only=True)
    except ClaimgraphError as err:
        return {**section, "error": err.message, "error_type": err.type, "hint": err.hint}
    try:
        stats = store.stats()  # counts every fact: read once (~15 ms at 100k facts)
        now_ms = time.time_ns() // 1_000_000 if now_ms is None else now_ms
        section.update(format=stats["format"], counts=_counts(store, stats, now_ms))
    finally:
        store.close()
    return section


def _counts(store: Any, stats: Mapping[str, Any], now_ms: int) -> dict[str, int]:
    """Dormant and suspect count every such fact, valid or not, as the store reports them
    (``stats``, the store's); ``flagged`` the facts with conflict links not ended now (one
    whose end is recorded for later still stands flagged); ``unsupported`` and
    ``files_missing`` split the VALID suspects the way ``audit`` does."""
    suspect = len(store.suspect_fact_ids())
    return {"valid": stats["facts"]["valid"], "dormant": len(store.dormant_fact_ids()),
            "suspect": suspect,
            "flagged": len(store.select_facts(conflicted=True, valid_at=now_ms)),
            "episodes": stats["episodes"],
            **(_suspect_split(store) if suspect else {"unsupported": 0, "files_missing": 0})}


def _suspect_split(store: Any) -> dict[str, int]:
    """Valid facts whose recorded audit found a citation unsupported (confabulation: needs a
    person), and those whose only problem is a cited file not on this machine. (Only asked
    when some fact is suspect: the read path it imports is most of `status`'s start-up.)"""
    from claimgraph.core.reads import suspects
    from claimgraph.core.shell import Shell

    found = suspects(Shell(store))["suspect"]
    unsupported = sum(1 for item in found
                      if any(v["verdict"] == "unsupported" for v in item["verdicts"]))
    return {"unsupported": unsupported, "files_missing": len(found) - unsupported}


def last_run(path: Path, log: str, results: tuple[str, ...], start: str) -> dict[str, Any] | None:
    """The newest result line, with its duration (or the time since its run's first line)."""
    found: dict[str, Any] | None = None
    for n, entry in enumerate(logs.entries_backward(log, path)):
        data = entry.event or {}
        if found is None and data.get("event") in results:
            found = _run_summary(data)
        elif found and data.get("run_id") == found["run_id"] and entry.ts_ms is not None:
            if str(data.get("event", "")).startswith(start):
                found["duration_ms"] = max(0, found.pop("_ts_ms") - entry.ts_ms)
        if n >= SCAN_LINES or (found and (found["duration_ms"] is not None or not found["run_id"])):
            break
    if found:
        found.pop("_ts_ms", None)
    return found


def _run_summary(data: dict[str, Any]) -> dict[str, Any]:
    return {"when": data.get("ts"), "event": data.get("event"),
            "result": data.get("status") or data.get("level"), "run_id": data.get("run_id"),
            "session": data.get("session"), "duration_ms": data.get("duration_ms"),
            "error": data.get("error") or data.get("reason"),
            "_ts_ms": logs.ts_ms_of(data.get("ts")) or 0}


def is_failure(entry: logs.Entry) -> bool:
    if entry.event is None:
        return entry.raw is not None and entry.raw.startswith("Traceback")
    level = str(entry.event.get("level", "")).lower()
    return level in ("error", "critical") or entry.event.get("status") in FAILED_STATUSES


def failures(paths: dict[str, Path], now_ms: int) -> dict[str, Any]:
    """Failures in the last 24 hours per log, and the command that lists them."""
    since = logs.Filters(since_ms=now_ms - DAY_MS)
    by_log = {name: sum(1 for e in logs.tail_one(name, path, since, SCAN_LINES) if is_failure(e))
              for name, path in paths.items()}
    by_log = {name: count for name, count in by_log.items() if count}
    return {"count": sum(by_log.values()), "by_log": by_log,
            "command": "claimgraph logs all --since 24h --level error"}


def model_problems(path: Path, now_ms: int) -> dict[str, Any]:
    """The model extractor's failures in the last 24 hours, by reason, and the latest's hint:
    warnings, not errors (the capture went on), so ``failures`` does not count them."""
    wanted = logs.Filters(since_ms=now_ms - DAY_MS, event=MODEL_PROBLEMS)
    found = [e.event for e in logs.tail_one("capture", path, wanted, SCAN_LINES) if e.event]
    latest = found[-1] if found else {}
    return {"count": len(found), "by_reason": dict(Counter(str(e.get("reason")) for e in found)),
            "latest": latest.get("message"), "hint": latest.get("hint")}
def poisoned_sessions(db: Path) -> list[dict[str, Any]]:
    """Sessions given up after repeated capture failures (``capture.failures``)."""
    from claimgraph.capture.failures import FailureLedger
    return [{"session": e.get("session"), "agent": e.get("agent"), "failures": e.get("failures"),
             "last_error": e.get("last_error"), "transcript": e.get("transcript"),
             "last_failed_at": to_iso(int(float(e.get("last_failed_at") or 0) * 1000))}
            for e in FailureLedger(db).poisoned()]


def lease_section(path: Path, now_ms: int) -> dict[str, Any]:
    holder = lease.read_holder(path)
    if holder is None:
        return {"path": str(path), "held": False}
    return {"path": str(path), "held": True, "alive": lease.holder_alive(holder),
            "pid": holder.get("pid"), "owner": holder.get("owner"),
            "holder": lease.describe_holder(holder, now_ms)}


def daemon_state(db: Path) -> dict[str, Any]:
    """The daemon's own account (pid file + heartbeat), so `status` and `daemon status` agree."""
    from claimgraph.daemon.singleton import describe
    report = describe(db)
    return {**report, "jobs": report.get("jobs") or {}}


def hooks_section(environ: Mapping[str, str]) -> dict[str, Any]:
    """Per agent: our hook events its user file registers, and whether it will run them
    (``hooks.registered``)."""
    from claimgraph.hooks.registered import hooks_section as registered
    return registered(environ)


def needs_attention(report: dict[str, Any]) -> list[dict[str, str]]:
    items: list[dict[str, str]] = []
    store = report["store"]
    if not store["exists"]:
        items.append(_item(f"there is no store at {store['path']} yet",
                           "run ./install.sh or claimgraph init"))
    elif "error" in store:
        items.append(_item(store["error"], store.get("hint") or "see `claimgraph logs all`"))
    unsupported = (store.get("counts") or {}).get("unsupported", 0)
    if unsupported:
        items.append(_item(f"{unsupported} claim(s) cite code their files do not contain "
                           "(unsupported: suspected confabulation)",
                           "run `claimgraph audit` and invalidate what is wrong"))
    failed = report["failures"]
    if failed["count"]:
        items.append(_item(f"{failed['count']} failure(s) in the last 24 hours "
                           f"({', '.join(failed['by_log'])})", f"run `{failed['command']}`"))
    model = report["model_extractor"]
    if model["count"]:
        reasons = ", ".join(f"{n} {reason}" for reason, n in model["by_reason"].items())
        items.append(_item(f"the model extractor failed {model['count']} time(s) in the last "
                           f"24 hours ({reasons}): those captures stored no model facts; "
                           f"latest: {model['latest']}", model["hint"] or
                           "run `claimgraph logs capture --event capture.model --since 24h`"))
    for entry in report["poisoned"]:
        items.append(_item(f"session {entry['session']} failed to capture {entry['failures']} "
                           f"times and is no longer retried (last: {entry['last_error']})",
                           f"fix the cause (`claimgraph logs capture --level error`), then run "
                           f"`claimgraph capture --retry {entry['session']}`"))
    items += _lease_items(report["leases"])
    items += _hook_items(report["hooks"])
    if report["daemon"]["state"] == "stale":
        items.append(_item("the daemon's pid file names a process that is gone",
                           "run `claimgraph daemon start` (it takes the stale file over)"))
    if store["exists"] and not _anything_captures(report):
        items.append(_item("no agent hooks are installed and the daemon is not running, "
                           "so nothing captures sessions", "run `claimgraph install`"))
    return items


def _lease_items(leases: dict[str, dict[str, Any]]) -> list[dict[str, str]]:
    return [_item(f"the {name} lease {held['path']} is held by a dead process: {held['holder']}",
                  "nothing is lost: the next claimgraph run takes it over; if no claimgraph "
                  f"process is running you may delete {held['path']}")
            for name, held in leases.items() if held["held"] and not held["alive"]]


def _hook_items(hooks: dict[str, dict[str, Any]]) -> list[dict[str, str]]:
    """Hooks that are registered but that their agent will not run."""
    items = []
    trust = hooks.get("codex", {}).get("trust") or {}
    if trust.get("status") in ("untrusted", "modified"):
        items.append(_item(f"Codex's claimgraph hooks are {trust['status']}: Codex skips them "
                           "without a word, so Codex sessions are not captured",
                           "run `claimgraph install --agent codex` where `codex` is on PATH "
                           "(it trusts them as Codex's /hooks does), or trust them in "
                           "`codex` → /hooks"))
    if hooks.get("gemini", {}).get("disabled"):
        items.append(_item("Gemini's hooks are turned off (hooksConfig in "
                           f"{hooks['gemini']['settings']}), so Gemini sessions are not captured",
                           "remove claimgraph from hooksConfig.disabled, or set "
                           "hooksConfig.enabled to true"))
    return items


def _anything_captures(report: dict[str, Any]) -> bool:
    hooked = any(agent["installed"] for agent in report["hooks"].values())
    return hooked or report["daemon"]["state"] == "running"


def _item(problem: str, what_to_do: str) -> dict[str, str]:
    return {"problem": problem, "what_to_do": what_to_do}


def when(iso: str | None, now_ms: int) -> str:
    """``2026-01-31T09:00:00.000Z (3h ago)`` for people."""
    stamp = logs.ts_ms_of(iso)
    if stamp is None:
        return "never"
    ago_s = max(0, now_ms - stamp) // 1000
    units = ((86400, "d"), (3600, "h"), (60, "m"), (1, "s"))
    count, unit = next(((ago_s // size, u) for size, u in units if ago_s >= size), (0, "s"))
    return f"{to_iso(stamp)} ({count}{unit} ago)"
