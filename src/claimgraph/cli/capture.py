"""``capture`` and ``curate``: the two background commands the SessionEnd hook sets going.

Both usually run detached with stdout and stderr appended to a sidecar log, so both speak
JSON lines only: structlog events on stderr, and ONE result line on stdout (capture's report,
curate's status). A failed capture prints one JSON error line (``event: capture.failed``) on
stderr and exits 1 with nothing half-written; its spool file stays for a later retry.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
import types
from pathlib import Path
from typing import Any

import structlog

from claimgraph.capture.events import AGENTS
from claimgraph.capture.failures import MAX_FAILURES, TRANSIENT_TYPES, FailureLedger, is_poisoned
from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit_error
from claimgraph.cli.runlog import RunLog
from claimgraph.daemon.rotate import append_rotated
from claimgraph.errors import ClaimgraphError, disk_full, is_disk_full
from claimgraph.logic.timeutil import to_iso

CURATE_STAGES = ("consolidate", "decay", "audit", "shortlists")
#: A crash's traceback and message are cut to this: a RecursionError's runs to megabytes.
MAX_TRACEBACK_CHARS = 20_000
MAX_ERROR_CHARS = 2_000


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "capture", parents=[common], help="capture a transcript's new tail into memory",
        description="Read TRANSCRIPT (or the transcript a hook's --spool payload names) from "
                    "where the last capture of its session stopped, extract and screen facts, "
                    "write them in one episode, then start the curator. On a terminal it says "
                    "what it learned; with --json, or piped (as the hooks run it), it prints "
                    "one JSON report line.")
    p.add_argument("transcript", nargs="?", metavar="TRANSCRIPT", help="the transcript file")
    p.add_argument("--format", "--agent", dest="agent", choices=AGENTS,
                   help="who wrote it (default: sniffed from the file; a file that is no "
                        "agent's transcript is refused unless --format text)")
    p.add_argument("--session", help="session id (default: the payload's, else the file name)")
    p.add_argument("--cwd", help="the directory the session started in, for the project id "
                   "(default: the payload's, else the transcript's first; with neither, only "
                   "user-scope facts are kept)")
    p.add_argument("--spool", metavar="FILE", help="a hook payload; removed after success")
    p.add_argument("--extractor", help="which extractor (default: the extractor setting)")
    p.add_argument("--no-curate", action="store_true", help="do not start the curator")
    p.add_argument("--retry", metavar="SESSION", help="capture a session given up after "
                   f"{MAX_FAILURES} failures (poisoned) again, from its recorded transcript")
    p.add_argument("--explain", action="store_true",
                   help="list every user sentence read, with the class the sentence model gave "
                        "it, its score (the probability it states something durable) and "
                        "whether it was kept, in the report's `explain` field")
    p.add_argument("--allow-relearn", action="store_true",
                   help="read and learn again what `claimgraph purge` removed of this session")
    p.set_defaults(command="capture")
    p = sub.add_parser(
        "curate", parents=[common], help="run the curator: consolidate, decay, audit",
        description="Take the curation lease (never waiting) and run the curator's stages "
                    "(consolidate, decay, audit, shortlists; see docs/curator.md), each "
                    "contained, in short fenced write transactions; re-run while curators that "
                    "were turned away left a dirty mark (3 passes at most); release. If another "
                    "curator holds the lease, log curate.skipped naming it, leave the dirty mark "
                    "and exit 0.")
    p.add_argument("--stage", action="append", choices=CURATE_STAGES, dest="stages",
                   help="run only this stage (repeatable; default: all)")
    p.add_argument("--dry-run", action="store_true",
                   help="plan and report without writing (takes no lease, leaves no mark)")
    p.set_defaults(command="curate")


def run_capture(ctx: Invocation, args: argparse.Namespace) -> int:
    from claimgraph.capture import run  # the readers and the write path, only when capturing

    ctx.lasting_db_path("capture")  # never into a store gone when this process ends
    started = time.monotonic()
    context = {"agent": args.agent, "session": args.session, "spool": args.spool}
    run_id, log, ledger, request = None, RunLog(None), None, None
    human = _for_a_person(ctx)
    try:
        log = RunLog.beside(ctx.db_path, ".capture.log")
        run_id = _background_logging(ctx, "cap-", log, echo=not human)
        ledger = FailureLedger(ctx.db_path)
        extractor = args.extractor or ctx.settings.value("extractor")
        request = _request(run, ledger, args, extractor, ctx.environ)
        context.update(agent=request.agent, session=request.session,
                       transcript=request.transcript)
        if not args.retry and is_poisoned(ledger.get(request.mark_key)):
            return _print(_log_record("capture.report", run_id, _poisoned(request, ledger)), log,
                          human=human)
        report = run.capture(request, _options(ctx, run))
    except ClaimgraphError as err:
        if err.type == "spool-missing":
            return _print(_log_record("capture.report", run_id, {
                "status": "spool-gone", **context, "warnings": [err.message]}), log, human=human)
        if err.type == "no-transcript":
            return _print(_log_record("capture.report", run_id, {
                "status": "no-session", **context, "warnings": [err.message]},
                level="debug"), log, human=human)
        if err.type == "spool-hopeless":
            return _print(_log_record("capture.report", run_id, {
                "status": "spool-given-up", **context, "warnings": [err.message]}), log,
                human=human)
        return _fail(err.to_dict(), {"run_id": run_id, **context}, started, log,
                     _count_failure(ledger, request or _spooled(args.spool), err.type,
                                    err.message), human=human)
    except Exception as err:  # a bug: still one JSON line, the traceback in the crash file
        # a full disk is no bug: the spool stays for later
        error = (disk_full(err.filename or ctx.db_path.parent).to_dict()
                 if isinstance(err, OSError) and is_disk_full(err) else _crash(ctx, err))
        return _fail(error, {"run_id": run_id, **context}, started, log,
                     _count_failure(ledger, request or _spooled(args.spool), error["type"],
                                    error["error"]), human=human)
    _forget_failures(ledger, request)
    report["curator"] = _start_curator(ctx, args, report)
    return _print(_log_record("capture.report", run_id, report), log, human=human,
                  text=_human_report(ctx, report, args) if human else None)


def _request(run: Any, ledger: FailureLedger, args: argparse.Namespace, extractor: str,
             environ: Any) -> Any:
    """The request from the arguments; with ``--retry``, from the failed capture's record."""
    recorded: dict[str, Any] = {}
    if args.retry:
        found = ledger.for_session(args.retry)
        if not found and not args.transcript:
            raise ClaimgraphError("retry-unknown", f"no failed capture of session {args.retry} "
                                  "is recorded", hint="`claimgraph status` lists the poisoned "
                                  "sessions; or pass the TRANSCRIPT to capture")
        if found:
            key, recorded = found[0]
            ledger.clear(key)
            structlog.get_logger("claimgraph.capture").info(
                "capture.retry", key=key, failures=recorded.get("failures"))
    transcript = args.transcript or recorded.get("transcript")
    if transcript:  # a link out of the agents' directories is refused before it is even read
        from claimgraph.capture.links import check_transcript_link
        check_transcript_link(os.path.abspath(transcript), environ)
    agent = args.agent or recorded.get("agent") or _sniffed_agent(transcript, args.spool)
    return run.make_request(
        transcript, agent=agent,
        session=args.session or recorded.get("session")
        or (args.retry if args.transcript else None),
        cwd=args.cwd or recorded.get("cwd"), spool=args.spool, extractor=extractor,
        environ=environ)


def _spooled(spool: str | None) -> Any:
    """What a spool payload says of its session, for the failure ledger when the pass failed
    before its request was built (a transcript that cannot be read): without it, such a
    failure would be retried by every sweep, with no backoff and no giving up."""
    if not spool:
        return None
    from claimgraph.capture.run import read_spool
    try:
        payload, _ = read_spool(spool)
    except ClaimgraphError:
        return None
    agent, session = payload.get("agent"), payload.get("session_id")
    if not (isinstance(agent, str) and isinstance(session, str) and agent and session):
        return None
    return types.SimpleNamespace(
        agent=agent, session=session, transcript=payload.get("transcript_path"),
        cwd=payload.get("cwd"), mark_key=f"capture:{agent}:{session}")


def _poisoned(request: Any, ledger: FailureLedger) -> dict[str, Any]:
    """A poisoned session is not tried again on its own: say so, and how to retry it."""
    entry = ledger.get(request.mark_key) or {}
    if request.spool:
        Path(request.spool).unlink(missing_ok=True)  # its request is in the ledger
    message = (f"session {request.session} failed to capture {entry.get('failures')} times "
               f"(last: {entry.get('last_error')}); it is no longer retried: run "
               f"`claimgraph capture --retry {request.session}` once the cause is fixed")
    structlog.get_logger("claimgraph.capture").warning("capture.poisoned", key=request.mark_key)
    return {"status": "poisoned", "agent": request.agent, "session": request.session,
            "transcript": request.transcript, "warnings": [message]}


def _count_failure(ledger: FailureLedger | None, request: Any, error_type: str,
                   message: str) -> dict[str, Any]:
    """Record the failure against its session; what the error line says about it."""
    if ledger is None or request is None or error_type in TRANSIENT_TYPES:
        return {}
    fields = {"agent": request.agent, "session": request.session,
              "transcript": request.transcript, "cwd": request.cwd}
    try:
        entry = ledger.record(request.mark_key, fields, error_type, message, time.time())
    except OSError as exc:
        return {"failure_count": f"not recorded: {exc}"}
    return {"failures": entry["failures"], "poisoned": entry["poisoned"],
            "next_try_at": to_iso(int(entry["next_try_at"] * 1000))}


def _forget_failures(ledger: FailureLedger | None, request: Any) -> None:
    if ledger is not None and request is not None:
        try:
            ledger.clear(request.mark_key)
        except OSError as exc:
            structlog.get_logger("claimgraph.capture").warning(
                "capture.ledger-unwritable", error=str(exc))



def _sniffed_agent(transcript: str | None, spool: str | None) -> str | None:
    """Which agent wrote a transcript given by hand; a file that is none of theirs (a
    pyproject.toml, a README) is refused rather than remembered as a conversation."""
    if transcript is None or spool is not None:
        return None  # the spool payload names its agent
    from claimgraph.capture.readers import detect_format

    agent = detect_format(os.path.abspath(transcript))
    if agent == "text":
        raise ClaimgraphError(
            "not-a-transcript", f"{transcript} is not a Claude Code, Codex or Gemini transcript",
            hint="pass --format text to capture it as a plain-text conversation "
                 "(user: / assistant: lines)", path=os.path.abspath(transcript))
    return agent


def _options(ctx: Invocation, run: Any) -> Any:
    settings = ctx.settings
    return run.Options(db=ctx.db_path, lease_wait_ms=settings.value("lease_wait_ms"),
                       lease_ttl_ms=settings.value("lease_ttl_ms"),
                       half_life_days=settings.value("half_life_days"),
                       environ=dict(ctx.environ),
                       allow_relearn=bool(getattr(ctx.args, "allow_relearn", False)),
                       explain=bool(getattr(ctx.args, "explain", False)))


def _start_curator(ctx: Invocation, args: argparse.Namespace, report: dict[str, Any]) -> str:
    """Only a capture that wrote something gives the curator work."""
    if args.no_curate:
        return "disabled"
    if report.get("status") != "captured":
        return "not-needed"
    from claimgraph.cli.curator_start import start_curator
    status, problem = start_curator(ctx, args, "claimgraph.capture")
    if problem:
        report["warnings"].append(problem)
    return status


def run_curate(ctx: Invocation, args: argparse.Namespace) -> int:
    """Exit 0 whenever the curator ran or rightly stood aside; a crash leaves its traceback."""
    from claimgraph.curator import run

    settings = _settings_or_refusal(ctx, args)
    log = RunLog.beside(ctx.db_path, ".curate.log")
    run_id = _background_logging(ctx, "cur-", log)
    options = run.Options(db=ctx.db_path, stages=tuple(args.stages or CURATE_STAGES),
                          dry_run=args.dry_run, lease_wait_ms=settings.value("lease_wait_ms"),
                          lease_ttl_ms=settings.value("lease_ttl_ms"),
                          half_life_days=settings.value("half_life_days"),
                          environ=dict(ctx.environ))
    try:
        result = run.curate(options, run_id)
    except ClaimgraphError as err:  # expected (a read-only store ...): one line, no traceback
        structlog.get_logger("claimgraph.curate").error("curate.failed", status="failed",
                                                        **err.to_dict())
        raise
    except Exception:
        structlog.get_logger("claimgraph.curate").error(
            "curate.crashed", traceback=traceback.format_exc())
        raise
    if ctx.json:
        return _print(_log_record("curate.result", run_id, result), log)
    structlog.get_logger("claimgraph.curate").info("curate.result", **result)
    print(f"curate {run_id}: {_curate_line(result)}", file=sys.stdout)
    return 0


def _settings_or_refusal(ctx: Invocation, args: argparse.Namespace) -> Any:
    """The settings; when the config file is refused, the curator still leaves its stamp for
    the SessionStart hook before it fails (``curator.refusal``: otherwise every session
    start would start another curator to refuse it again)."""
    try:
        return ctx.settings
    except ClaimgraphError as error:
        if not args.dry_run:
            from claimgraph.curator.refusal import lease_wait_ms, record_refusal
            record_refusal(error, getattr(args, "db", None), ctx.environ, lease_wait_ms())
        raise


def _curate_line(result: dict[str, Any]) -> str:
    if result["status"] == "already-running":
        holder = result.get("holder") or {}
        return ("skipped: another curator holds the lease "
                f"({holder.get('owner')}, pid {holder.get('pid')})")
    stages = ", ".join(f"{name} {s['status']}" for name, s in result["stages"].items())
    return f"{result['status']} in {result['passes']} pass(es): {stages}"


def _for_a_person(ctx: Invocation) -> bool:
    """A person at a terminal reads a summary; a pipe, a hook or ``--json`` gets the one JSON
    line."""
    try:
        return sys.stdout.isatty() and not ctx.json
    except (AttributeError, ValueError):
        return False


def _human_report(ctx: Invocation, report: dict[str, Any], args: argparse.Namespace) -> str:
    from claimgraph.cli.capture_summary import summary
    return summary(ctx.db_path, report, extractor_asked=bool(args.extractor))


def _background_logging(ctx: Invocation, prefix: str, log: RunLog, echo: bool = True) -> str:
    """JSON lines into the run's sidecar log (see ``runlog``), bound to a fresh run id."""
    log.configure(ctx.settings.value("log_level"), echo=echo)
    run_id = prefix + os.urandom(6).hex()
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(run_id=run_id)
    return run_id


def _print(report: dict[str, Any], log: RunLog, human: bool = False,
           text: str | None = None) -> int:
    """The result line, redacted like every log line (it lands in the capture log); for a
    person, ``text`` (a summary), else the report's warnings, is printed instead."""
    from claimgraph.logic.redact import redact, redact_value
    report = redact_value(report)
    if not human:
        shown = json.dumps(report, ensure_ascii=False, default=str)
    elif text is None:
        shown = redact("; ".join(report.get("warnings") or []) or str(report.get("status")))
    else:
        shown = redact(text)
    print(shown, file=sys.stdout, flush=True)
    log.record(report)
    return 0


def _log_record(event: str, run_id: str | None, fields: dict[str, Any],
                level: str = "info") -> dict[str, Any]:
    """A result line that is also a log line (``claimgraph logs`` reads capture.log back)."""
    head = {"ts": to_iso(time.time_ns() // 1_000_000), "level": level, "event": event,
            "pid": os.getpid(), "run_id": run_id}
    return {**head, **fields}


def _fail(error: dict[str, Any], context: dict[str, Any], started: float, log: RunLog,
          counted: dict[str, Any] | None = None, human: bool = False) -> int:
    """The one JSON error line: what failed, what to do, which session, how long it took,
    and how often this session has failed (``poisoned`` once it is given up)."""
    from claimgraph.logic.redact import redact_value
    known = {k: v for k, v in context.items() if v is not None and k != "run_id"}
    line = _log_record("capture.failed", context.get("run_id"), {
        "status": "error", **known, **error, **(counted or {}),
        "duration_ms": round((time.monotonic() - started) * 1000)}, level="error")
    if context.get("spool"):
        line["spool_kept"] = os.path.exists(context["spool"])
    line = redact_value(line)
    emit_error(f"claimgraph capture: {line.get('error')}\n  → {line.get('hint')}" if human
               else json.dumps(line, ensure_ascii=False, default=str))
    log.record(line)
    return 1


def _crash(ctx: Invocation, err: Exception) -> dict[str, Any]:
    """The traceback goes to the crash log, redacted and cut to its last lines: a transcript
    that crashes every retry must not grow it by its own size each time."""
    from claimgraph.logic.redact import redact
    path = ctx.crash_path()
    try:
        append_rotated(path, redact(f"--- capture {to_iso(time.time_ns() // 1_000_000)}\n"
                                    f"{_short_traceback()}"))
        where = f"the traceback is in {path}"
    except OSError:
        where = "the traceback could not be saved"
    message = redact(f"unexpected error: {type(err).__name__}: {err}")[:MAX_ERROR_CHARS]
    return {"error": message, "type": "internal-error", "hint": f"this is a bug; {where}"}


def _short_traceback() -> str:
    text = traceback.format_exc()
    if len(text) <= MAX_TRACEBACK_CHARS:
        return text
    return f"[… {len(text) - MAX_TRACEBACK_CHARS} characters cut …]\n" + text[-MAX_TRACEBACK_CHARS:]


COMMANDS = {"capture": run_capture, "curate": run_curate}
