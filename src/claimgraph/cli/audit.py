"""``audit`` and ``provenance``: does memory still match the code, and where did a fact come from.

Both only read (no lease). ``audit`` exits 5 when confabulation is suspected (a cited file is
here and does not contain what the claim quotes), so a script or CI step can stop on it. A
cited file that is not on this machine (``file-missing``: a clone elsewhere, a deleted branch)
is reported but exits 0, unless ``--strict``; every other verdict exits 0. ``status`` applies
the same rule to the curator's recorded verdicts. ``audit --claims FILE`` checks a JSON
document instead of the store (``run_claims``), with the same verdicts and exit codes.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Mapping

from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit, emit_error, emit_json
from claimgraph.cli.scope import add_project_choice, review_scopes
from claimgraph.cli.values import resolve_fact_id
from claimgraph.core import audit as audit_core
from claimgraph.core import provenance as provenance_core
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.present_records import fact_json, fact_line, plural, short_id
from claimgraph.logic.timeutil import to_iso
from claimgraph.sidecar import Sidecars

EXIT_CONFABULATION = 5
EXIT_FAILED = 1
#: A ``--deep`` check that got no verdicts.
DEEP_FAILED = ("failed", "unparseable")
#: Transcript text longer than this is cut in human output (JSON keeps all of it).
SHOWN_TEXT_CHARS = 300


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("audit", parents=[common],
                       help="check cited code (facts', or any JSON document's) against the files",
                       description="Claim-vs-evidence: for every valid fact citing 'path: quote' "
                                   "(or, with --claims, every object of a JSON document that "
                                   "carries \"evidence\"), check that the quoted identifiers "
                                   "and `code` occur in the file now. Exit 5 when a file is "
                                   "here and does not say what its claim quotes (unsupported); "
                                   "a cited file that is not on this machine (file-missing) is "
                                   "reported, exit 0.")
    p.add_argument("--base", metavar="DIR", help="resolve relative citations against DIR "
                   "(default: the project root of each fact's episode, else the current project)")
    p.add_argument("--strict", action="store_true",
                   help="exit 5 for file-missing citations too")
    add_project_choice(p, "audit the facts")
    p.add_argument("--claims", metavar="FILE", help="check the evidence cited in any JSON "
                   "document (an agent's plan or report; - reads stdin) instead of the store's "
                   "facts; --base defaults to the current project's root")
    p.add_argument("--deep", action="store_true", help="with --claims: also ask the model "
                   "command (llm_cmd) to refute each claim against the cited source; exit 5 "
                   "when it refutes one, 1 when it cannot answer")
    p.set_defaults(command="audit")
    p = sub.add_parser("provenance", parents=[common], help="the chain that backs a fact",
                       description="A fact, its episode, the transcript lines it came from and "
                                   "each cited file with its current verdict.")
    p.add_argument("fact", metavar="FACT_ID", help="a full id or the short f-xxxxxxxx shown")
    p.add_argument("--base", metavar="DIR", help="resolve relative citations against DIR")
    p.set_defaults(command="provenance")


def run_audit(ctx: Invocation, args: argparse.Namespace) -> int:
    if args.claims is not None:
        return run_claims(ctx, args)  # no store: a document only
    if args.deep:
        raise ClaimgraphError("usage", "--deep checks a document's claims: it needs --claims",
                              hint="claimgraph audit --claims report.json --deep")
    result = audit_core.audit(ctx.shell(), args.base, sidecars=Sidecars(ctx.db_path),
                              environ=ctx.environ, scopes=review_scopes(ctx, args))
    summary = result["summary"]
    if ctx.json:
        emit_json(result)
    else:
        emit(banner(summary))
        for check in result["checks"]:
            emit_check(check, "  ")
        if summary["files_missing"]:
            emit(missing_note(summary["files_missing"], args.strict))
    failing = summary["confabulation_suspected"] or (args.strict and summary["files_missing"])
    return EXIT_CONFABULATION if failing else 0


def banner(summary: Mapping[str, Any]) -> str:
    """``audit: 3 claims (2 supported, 1 unsupported) — overall suspect, confabulation suspected``"""
    counts = ", ".join(f"{n} {verdict}" for verdict, n in summary["by_verdict"].items())
    head = f"audit: {plural(summary['total'], 'claim')}" + (f" ({counts})" if counts else "")
    flag = ", confabulation suspected" if summary["confabulation_suspected"] else ""
    return f"{head} — overall {summary['overall']}{flag}"


def missing_note(count: int, strict: bool) -> str:
    """What file-missing means, and what the exit code makes of it."""
    verdict = "so this audit fails (--strict)" if strict else "not counted as confabulation " \
        "(--strict fails on them)"
    return (f"file-missing: {plural(count, 'citation')} whose file is not on this machine "
            f"(checked out elsewhere, or deleted); {verdict}")


def emit_check(check: Mapping[str, Any], indent: str) -> None:
    """The verdict, the fact and the citation, then what was found and what was not."""
    emit(f"{indent}{check['verdict']:<15} {short_id(check['fact_id'])}  {check['evidence']}")
    for line in check_details(check):
        emit(f"{indent}    {line}")


def check_details(check: Mapping[str, Any]) -> list[str]:
    """Why a check got its verdict: the reason, the names found and missing, the code found."""
    ids, spans = check["identifiers"], check["code_spans"]
    details = []
    if check.get("reason"):
        details.append(f"reason: {check['reason']}")
    if ids["found"] or ids["missing"]:
        details.append(f"identifiers found: {', '.join(ids['found']) or '-'}; "
                       f"missing: {', '.join(ids['missing']) or '-'}")
    if spans["checked"]:
        details.append(f"code found {len(spans['found'])}/{len(spans['checked'])}")
    return details


def run_claims(ctx: Invocation, args: argparse.Namespace) -> int:
    """``audit --claims FILE [--deep]``: the evidence a JSON document cites (an agent's plan,
    review or report), checked the way facts are; never opens the store. Exit 5 as ``audit``,
    and when ``--deep`` has the model refute a claim; 1 when the document cannot be read or
    ``--deep`` could not get verdicts (the floor's findings are printed first)."""
    from claimgraph.core.audit_document import audit_claims, failing, load_document
    document = load_document(args.claims)
    model: dict[str, Any] = {}
    if args.deep:
        import structlog
        model = {"llm_cmd": ctx.settings.value("llm_cmd"),
                 "timeout_ms": ctx.settings.value("llm_timeout_ms"),
                 "on_usage": structlog.get_logger("claimgraph.audit").info}
    report = audit_claims(document, args.base, deep=args.deep, environ=ctx.environ,
                          name=args.claims, **model)
    if ctx.json:
        emit_json(report)
    else:
        emit_document_report(report, args.strict)
    if failing(report, args.strict):
        return EXIT_CONFABULATION
    deep = report.get("deep") or {}
    if deep.get("status") in DEEP_FAILED:
        error = deep["error"]
        emit_error(json.dumps(error, ensure_ascii=False) if ctx.json else
                   f"claimgraph: deep check failed: {error['error']} — {error.get('hint', '')}")
        return EXIT_FAILED
    return 0


def emit_document_report(report: Mapping[str, Any], strict: bool) -> None:
    """The banner, each check under its claim, the file-missing note, the deep line."""
    summary = report["summary"]
    emit(banner(summary))
    emit(f"  {plural(report['claims'], 'evidenced object')} in "
         f"{report['document'] or 'the document'}, checked against {report['base']}")
    for check in report["checks"]:
        emit_claim_check(check)
    if summary["files_missing"]:
        emit(missing_note(summary["files_missing"], strict))
    if report.get("deep"):
        emit(deep_line(report["deep"]))


def emit_claim_check(check: Mapping[str, Any]) -> None:
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


def run_provenance(ctx: Invocation, args: argparse.Namespace) -> int:
    sh = ctx.shell()
    chain = provenance_core.provenance(sh, resolve_fact_id(sh, args.fact),
                                       sidecars=Sidecars(ctx.db_path), base=args.base,
                                       environ=ctx.environ)
    if ctx.json:
        emit_json({**chain, "fact": fact_json(chain["fact"])})
    else:
        emit_chain(chain)
    return 0


def emit_chain(chain: Mapping[str, Any]) -> None:
    emit(f"fact        {fact_line(chain['fact'])}")
    for item in chain["fact"].get("evidence") or []:
        emit(f"  evidence  {item}")
    episode = chain["episode"]
    if episode is None:
        emit("episode     none (asserted directly)")
    else:
        emit(f"episode     {short_id(episode['id'])}  {episode['ref']}  "
             f"({episode['source_type']}, opened {to_iso(episode['opened_at'])})")
    shown = chain["transcript"]
    if shown.get("error"):
        emit(f"transcript  unavailable: {shown['error']}")
    for line in shown["lines"]:
        text = " ".join(line["text"].split())
        cut = text if len(text) <= SHOWN_TEXT_CHARS else text[:SHOWN_TEXT_CHARS - 1] + "…"
        emit(f"transcript  L{line['line']} {line['kind']}: {cut}")
    for check in chain["files"]:
        emit_check(check, "file        ")


COMMANDS = {"audit": run_audit, "provenance": run_provenance}
