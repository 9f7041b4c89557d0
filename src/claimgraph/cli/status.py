"""``status``: is claimgraph healthy, and if not, what to run next.

Exit 1 whenever something needs attention, so scripts and install checks can gate on it; the
screen (or the JSON) always ends with what to do about each problem.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit, emit_json
from claimgraph.health import status
from claimgraph.logic.present_records import plural

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("status", parents=[common], help="health at a glance; exit 1 if "
                       "something needs attention", description="The store, the last capture "
                       "and curation, the day's failures, leases, the daemon and the hooks.")
    p.set_defaults(command="status")


def run_status(ctx: Invocation, args: argparse.Namespace) -> int:
    now_ms = time.time_ns() // 1_000_000
    report = status.gather(ctx.db_path, ctx.environ, now_ms)
    if ctx.json:
        emit_json(report)
    else:
        for line in render(report, now_ms):
            emit(line)
    return 1 if report["needs_attention"] else 0


def render(report: dict[str, Any], now_ms: int) -> list[str]:
    rows = [("store", _store_line(report["store"])),
            ("capture", _run_line(report["last_capture"], now_ms)),
            ("curation", _run_line(report["last_curation"], now_ms)),
            ("failures", _failures_line(report["failures"])),
            ("poisoned", _poisoned_line(report["poisoned"]))]
    if report["model_extractor"]["count"]:
        rows.append(("model", _model_line(report["model_extractor"])))
    rows += [(f"{name} lease", _lease_line(held)) for name, held in report["leases"].items()]
    rows.append(("daemon", _daemon_line(report["daemon"])))
    rows += [("hooks", f"{agent}: {_hooks_line(hooks)}")
             for agent, hooks in report["hooks"].items()]
    lines = [f"{label:<12} {text}" for label, text in rows]
    items = report["needs_attention"]
    if not items:
        return [*lines, "all good"]
    for item in items:
        lines += [f"! {item['problem']}", f"  → {item['what_to_do']}"]
    return lines


def _store_line(store: dict[str, Any]) -> str:
    if not store["exists"]:
        return f"{store['path']} (not created yet)"
    if "error" in store:
        return f"{store['path']} (cannot open: {store['error_type']})"
    counts = store["counts"]
    missing = (f" ({counts['files_missing']} only cite files not on this machine)"
               if counts.get("files_missing") else "")
    return (f"{store['path']} (format {store['format']}): {counts['valid']} valid facts, "
            f"{counts['dormant']} dormant, {counts['suspect']} suspect{missing}, "
            f"{counts['flagged']} flagged, {plural(counts['episodes'], 'episode')}")


def _run_line(run: dict[str, Any] | None, now_ms: int) -> str:
    if run is None:
        return "never"
    parts = [status.when(run["when"], now_ms), str(run["result"])]
    if run.get("duration_ms") is not None:
        parts.append(f"{run['duration_ms']} ms")
    if run.get("session"):
        parts.append(f"session {run['session']}")
    if run.get("error"):
        parts.append(str(run["error"]))
    return ", ".join(parts)


def _failures_line(failures: dict[str, Any]) -> str:
    if not failures["count"]:
        return "none in the last 24 hours"
    where = ", ".join(f"{n} in {log}" for log, n in failures["by_log"].items())
    return f"{failures['count']} in the last 24 hours ({where}): `{failures['command']}`"


def _model_line(model: dict[str, Any]) -> str:
    reasons = ", ".join(f"{n} {reason}" for reason, n in model["by_reason"].items())
    return f"{model['count']} failed call(s) in the last 24 hours ({reasons})"
def _poisoned_line(poisoned: list[dict[str, Any]]) -> str:
    if not poisoned:
        return "no session given up"
    return f"{plural(len(poisoned), 'session')} given up: " + ", ".join(
        f"{p['session']} ({p['failures']} failures)" for p in poisoned)


def _lease_line(held: dict[str, Any]) -> str:
    if not held["held"]:
        return "free"
    return f"{'alive' if held['alive'] else 'DEAD'}: {held['holder']}"


def _daemon_line(daemon: dict[str, Any]) -> str:
    if daemon["state"] == "stopped":
        return "not installed or stopped (optional: the hooks do the capturing)"
    beat = f", last heartbeat {daemon['heartbeat_at']}" if daemon.get("heartbeat_at") else ""
    return f"{daemon['state']} (pid {daemon.get('pid')}{beat})"


def _hooks_line(hooks: dict[str, Any]) -> str:
    plugin = hooks.get("plugin")
    if plugin and not hooks["events"]:
        return f"installed by the plugin {plugin}"
    if hooks["installed"]:
        also = f" (the plugin {plugin} is enabled too: its hooks step aside)" if plugin else ""
        return f"installed in {hooks['settings']}{also}" + _runs_line(hooks)
    if not hooks["events"] and not hooks.get("agent_found", True):
        return f"not installed (the agent is not used here: no {Path(hooks['settings']).parent})"
    found = ", ".join(hooks["events"]) or "none"
    return f"not installed (found: {found}) in {hooks['settings']}" + _runs_line(hooks)


def _runs_line(hooks: dict[str, Any]) -> str:
    """Whether the agent will run them: Codex's trust, Gemini's hooksConfig."""
    trust = hooks.get("trust")
    if trust:
        return f"; trust: {trust['status']}" + (f" ({trust['reason']})" if trust.get("reason")
                                                 and trust["status"] != "trusted" else "")
    return "; DISABLED in hooksConfig" if hooks.get("disabled") else ""


COMMANDS = {"status": run_status}
