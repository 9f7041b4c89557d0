"""``daemon run|start|stop|status|sweep|install-unit``: the optional backstop (docs/daemon.md).

``start`` detaches ``daemon run`` (new session, stdin from /dev/null, output appended to
``<db>.daemon.log``, ``/`` as cwd) and waits until its status file names it; ``stop`` sends
SIGTERM and waits for the process to go. ``status`` always exits 0 and says running, stopped
or stale (a pid file whose process died); ``sweep`` runs one sweep pass in the foreground.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import signal
import subprocess
import sys
import time
from typing import Any

import psutil

from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit, emit_json
from claimgraph.daemon import singleton, unit
from claimgraph.daemon.settings import ENV_PREFIX, SETTING_HELP, DaemonSettings
from claimgraph.errors import ClaimgraphError
from claimgraph.private import open_private, private_dir
from claimgraph.sidecar import Sidecars

START_WAIT_S = 15.0
STOP_WAIT_S = 15.0
POLL_S = 0.1
ACTIONS = {"run": "run in the foreground until SIGTERM",
           "start": "start in the background (output to <db>.daemon.log)",
           "stop": "stop the running daemon (SIGTERM) and wait for it",
           "status": "running / stopped / stale, pid, uptime, last run of each job",
           "sweep": "run one sweep pass now and print what it did",
           "install-unit": "write a systemd user unit for `daemon run`"}


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("daemon", parents=[common], help="the optional backstop daemon",
                       description="Sweeps for sessions that ended without a capture, starts "
                                   "the curator periodically, rotates the logs. claimgraph "
                                   "works fully without it.",
                       epilog=settings_epilog(),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, text in ACTIONS.items():
        action = actions.add_parser(name, parents=[common], help=text, description=text)
        action.set_defaults(command=f"daemon {name}")
        if name == "install-unit":
            action.add_argument("--dry-run", action="store_true", help="print, write nothing")


def settings_epilog() -> str:
    """The daemon's knobs, their defaults and meaning, from ``DaemonSettings`` itself."""
    rows = [f"  {ENV_PREFIX}{f.name.upper():<22} {f.default!s:<10} {SETTING_HELP[f.name]}"
            for f in dataclasses.fields(DaemonSettings)]
    return ("settings (environment variables; not in the config file), name, default, "
            "meaning:\n" + "\n".join(rows) + "\nMore in docs/daemon.md.")


def run_run(ctx: Invocation, args: argparse.Namespace) -> int:
    from claimgraph.daemon.service import Service  # apscheduler only when serving

    settings = DaemonSettings.from_environ(ctx.environ)
    return Service(ctx.lasting_db_path("daemon run"), ctx.environ, settings,
                   ctx.settings.value("log_level")).run()


def run_start(ctx: Invocation, args: argparse.Namespace) -> int:
    state, record = singleton.state(ctx.lasting_db_path("daemon start"))
    if state == "running" and record is not None:
        return _say(ctx, {"status": "already-running", "pid": record["pid"]},
                    f"the daemon already runs (pid {record['pid']})")
    child = _spawn(ctx, args)
    _wait_started(ctx, child)
    return _say(ctx, {"status": "started", "pid": child.pid,
                      "log": str(Sidecars(ctx.db_path).daemon_log)},
                f"daemon started (pid {child.pid}); its log is {Sidecars(ctx.db_path).daemon_log}")


def _spawn(ctx: Invocation, args: argparse.Namespace) -> subprocess.Popen[bytes]:
    db = ctx.db_path.absolute()
    log_path = Sidecars(db).daemon_log
    private_dir(log_path.parent)
    config = getattr(args, "config", None)
    extra = ["--config", os.path.abspath(config)] if config else []
    argv = [sys.executable, "-m", "claimgraph", "daemon", "run", "--db", str(db), *extra]
    with open_private(log_path, "ab") as log_file:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log_file,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                close_fds=True, cwd="/", env=dict(ctx.environ))


def _wait_started(ctx: Invocation, child: subprocess.Popen[bytes]) -> None:
    """Until the status file names the child; refuse if it exits first or never says so."""
    deadline = time.monotonic() + START_WAIT_S
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise ClaimgraphError("daemon-start-failed", f"the daemon exited at once "
                                  f"(code {child.returncode})", hint="see "
                                  f"{Sidecars(ctx.db_path).daemon_log} for why", pid=child.pid)
        report = singleton.describe(ctx.db_path)
        if report["state"] == "running" and report["pid"] == child.pid and report.get("jobs"):
            child.returncode = 0  # never awaited: keep Popen's finalizer quiet
            return
        time.sleep(POLL_S)
    child.returncode = 0
    raise ClaimgraphError("daemon-start-slow", f"the daemon (pid {child.pid}) did not report "
                          f"within {START_WAIT_S:.0f} s", hint="check `claimgraph daemon status` "
                          f"and {Sidecars(ctx.db_path).daemon_log}", pid=child.pid)


def run_stop(ctx: Invocation, args: argparse.Namespace) -> int:
    state, record = singleton.state(ctx.db_path)
    if state != "running" or record is None:
        return _say(ctx, {"status": f"not-running ({state})", "pid": (record or {}).get("pid")},
                    f"the daemon is not running ({state})")
    pid = record["pid"]
    try:
        process = psutil.Process(pid)
        os.kill(pid, signal.SIGTERM)
        process.wait(STOP_WAIT_S)
    except psutil.NoSuchProcess:
        pass
    except psutil.TimeoutExpired:
        raise ClaimgraphError("daemon-stop-slow", f"the daemon (pid {pid}) is still running "
                              f"{STOP_WAIT_S:.0f} s after SIGTERM", hint=f"kill -9 {pid}; the "
                              "next start takes its pid file over", pid=pid) from None
    return _say(ctx, {"status": "stopped", "pid": pid}, f"daemon stopped (pid {pid})")


def run_status(ctx: Invocation, args: argparse.Namespace) -> int:
    report = singleton.describe(ctx.db_path)
    if ctx.json:
        emit_json(report)
        return 0
    head = f"daemon {report['state']}"
    if report["pid"]:
        head += f" (pid {report['pid']}"
        head += f", up {_duration(report['uptime_s'])})" if "uptime_s" in report else ")"
    emit(head)
    for name, job in sorted((report.get("jobs") or {}).items()):
        result = job.get("result")
        detail = job.get("error") if result == "error" else show_detail(job.get("detail"))
        emit(f"  {name:<9} {job.get('last_run')}  {result}"
             + (f"  {detail}" if detail else ""))
    return 0


def show_detail(detail: Any) -> str:
    """A job's outcome for people: ``found=2 captured=1``, lists joined, nothing empty."""
    if isinstance(detail, dict):
        return " ".join(f"{key}={show_detail(value) or '-'}" for key, value in detail.items()
                        if value not in (None, {}, []))
    if isinstance(detail, (list, tuple)):
        return ",".join(show_detail(item) for item in detail)
    return "" if detail is None else str(detail)


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


def run_sweep(ctx: Invocation, args: argparse.Namespace) -> int:
    from claimgraph.daemon.sweep import Sweeper

    settings = DaemonSettings.from_environ(ctx.environ)
    summary = Sweeper(ctx.lasting_db_path("daemon sweep"), ctx.environ, settings).run()
    return _say(ctx, summary, " ".join(f"{k} {v}" for k, v in summary.items()))


def run_install_unit(ctx: Invocation, args: argparse.Namespace) -> int:
    result = unit.install(ctx.lasting_db_path("daemon install-unit"), ctx.environ,
                          dry_run=args.dry_run)
    if ctx.json:
        emit_json(result)
        return 0
    if args.dry_run:
        emit(result["unit"])
    emit(f"{result['status']}: {result['path']}")
    emit("enable and start it with:")
    for command in result["enable"]:
        emit(f"  {command}")
    return 0


def _say(ctx: Invocation, data: dict[str, Any], text: str) -> int:
    if ctx.json:
        emit_json(data)
    else:
        emit(text)
    return 0


COMMANDS = {"daemon run": run_run, "daemon start": run_start, "daemon stop": run_stop,
            "daemon status": run_status, "daemon sweep": run_sweep,
            "daemon install-unit": run_install_unit}
