"""``claimgraph audit --claims FILE [--base DIR] [--deep] [--strict] [--json]``.

Checks the evidence an arbitrary JSON document cites (an agent's plan, review or report) the
way ``audit`` checks facts, and never opens the store. Exit codes, so it can gate a commit or a
CI step: 5 when confabulation is suspected (a cited file is here and lacks what is quoted), when
``--deep`` has the model refute a claim, or with ``--strict`` when a cited file is missing; 1
when the document cannot be read or ``--deep`` could not get verdicts (the floor's findings
are printed first); 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Mapping

import structlog

from claimgraph.cli.audit import EXIT_CONFABULATION, banner, check_details, missing_note
from claimgraph.cli.context import Context
from claimgraph.cli.output import emit, emit_error, emit_json, plural
from claimgraph.core.audit_document import audit_claims, failing, load_document

EXIT_FAILED = 1
DEEP_FAILED = ("failed", "unparseable")
log = structlog.get_logger("claimgraph.audit")


def run_claims(ctx: Context, args: argparse.Namespace) -> int:
    document = load_document(args.claims)
    model: dict[str, Any] = {}
    if args.deep:
        model = {"llm_cmd": ctx.settings.value("llm_cmd"),
                 "timeout_ms": ctx.settings.value("llm_timeout_ms"), "on_usage": log.info}
    report = audit_claims(document, args.base, deep=args.deep, environ=ctx.environ,
                          name=args.claims, **model)
    if ctx.json:
        emit_json(report)
    else:
        emit_report(report, args.strict)
    if failing(report, args.strict):
        return EXIT_CONFABULATION
    deep = report.get("deep") or {}
    if deep.get("status") in DEEP_FAILED:
        error = deep["error"]
        emit_error(json.dumps(error, ensure_ascii=False) if ctx.json else
                   f"claimgraph: deep check failed: {error['error']} — {error.get('hint', '')}")
        return EXIT_FAILED
    return 0


def emit_report(report: Mapping[str, Any], strict: bool) -> None:
    """The banner, each check under its claim, the file-missing note, the deep line."""
    summary = report["summary"]
    emit(banner(summary))
    emit(f"  {plural(report['claims'], 'evidenced object')} in "
         f"{report['document'] or 'the document'}, checked against {report['base']}")
    for check in report["checks"]:
        emit_check(check)
    if summary["files_missing"]:
        emit(missing_note(summary["files_missing"], strict))
    if report.get("deep"):
        emit(deep_line(report["deep"]))


def emit_check(check: Mapping[str, Any]) -> None:
    """``verdict  $.json.path  label``, the citation, why, and the model's verdict if asked."""
    emit(f"  {check['verdict']:<15} {check['json_path']}  {check['label']}")
    emit(f"      {check['evidence']}")
    for line in check_details(check):
        emit(f"      {line}")
    deep = check.get("deep")
    if deep:
        emit(f"      deep: {deep['verdict']}" + (f" — {deep['why']}" if deep.get("why") else ""))
        if deep.get("quote"):
            emit(f"      deep quote: {deep['quote']}")


def deep_line(deep: Mapping[str, Any]) -> str:
    """``deep (claude): ok — 1 supported, 1 refuted, 0 unclear, 0 unjudged``."""
    counts = ", ".join(f"{n} {verdict}" for verdict, n in deep["counts"].items())
    head = f"deep ({deep['command']})" if deep.get("command") else "deep"
    extra = f", {deep['ignored']} malformed entries ignored" if deep.get("ignored") else ""
    why = f" ({deep['reason']})" if deep.get("reason") else ""
    return f"{head}: {deep['status']}{why} — {counts}{extra}"
