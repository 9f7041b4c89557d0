"""``doctor``: check the store thoroughly and say what to do about each finding.

Exit 1 when anything needs attention, like ``status``; ``--fix`` repairs what can be repaired
without losing anything (see ``claimgraph.health.doctor``).
"""

from __future__ import annotations

import argparse
from typing import Any

from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit, emit_json
from claimgraph.health import doctor


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "doctor", parents=[common], help="full integrity check of the store; exit 1 on problems",
        description="SQLite's full integrity check and the search indexes' own, evidence files "
                    "that are missing or cited by nothing, stuck spool files, sessions given up "
                    "after repeated failures, and files others can read; each problem with the "
                    "command that deals with it.")
    p.add_argument("--fix", action="store_true", help="make loose files private and rebuild a "
                   "damaged store from its tables (the damaged file is kept)")
    p.set_defaults(command="doctor")


def run_doctor(ctx: Invocation, args: argparse.Namespace) -> int:
    report = doctor.examine(ctx.db_path, ctx.environ, fix=args.fix)
    if ctx.json:
        emit_json(report)
    else:
        for line in render(report):
            emit(line)
    return 1 if report["problems"] else 0


def render(report: dict[str, Any]) -> list[str]:
    lines = [f"store        {report['store']}"]
    for check in report["checks"]:
        extra = [f"{key} {check[key]}" for key in ("fixed", "orphaned") if check.get(key)]
        if check.get("rebuilt"):
            extra.append(str(check["rebuilt"]))
        note = f" ({'; '.join(extra)})" if extra else ""
        lines.append(f"{check['check']:<12} {'ok' if check['ok'] else 'PROBLEM'}{note}")
        lines += [f"  ! {problem}" for problem in check["problems"]]
        if check["count"] > len(check["problems"]):
            lines.append(f"  … and {check['count'] - len(check['problems'])} more")
        if check["what_to_do"]:
            lines.append(f"  → {check['what_to_do']}")
    lines.append("all good" if not report["problems"] else
                 f"{report['problems']} check(s) need attention")
    return lines


COMMANDS = {"doctor": run_doctor}
