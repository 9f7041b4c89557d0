"""The curator's audit stage: claim-vs-evidence over every valid fact citing a file, recorded.

``core.audit`` judges (docs/claims-audit.md); this module decides what needs judging again and
stores the latest verdict per (fact, citation) with the cited file's content hash
(``audit_verdicts``). A claim whose citation is judged ``unsupported`` or ``file-missing`` is
SUSPECT: listed by ``reads.suspects`` and ``reads.conflicts`` until a later audit finds it backed
again.

An unchanged file is not re-read. Each stored verdict keeps, in ``details``, where the citation
resolved (``path``) and a stat fingerprint of what was there (size, mtime, ctime, inode for a
regular file; ``missing`` / ``not-a-file`` / ``outside`` otherwise), taken BEFORE the read. A
citation whose path and fingerprint match its stored verdict is skipped without opening the
file. When the fingerprint moved, the file is read and hashed; if the hash equals the stored one
the verdict cannot have changed (it depends only on the quote and the bytes), and only the
fingerprint is refreshed. Taking the stat before the read errs safe: a file that changes while
we read it gets a newer stat next time, so it is read again.

Writes happen in short transactions of at most ``batch`` verdicts, each preceded by
``fenced()``; a False stops the pass with ``{"status": "lease-lost"}``.
"""

from __future__ import annotations

import os
import stat as statmod
from pathlib import Path
from typing import Any, Callable, Mapping

from claimgraph.core.audit import NO_ROOT, Auditor, cited_files, locate
from claimgraph.core.decay import Transaction, valid_now
from claimgraph.core.shell import Shell
from claimgraph.logic import evidence_match as P
from claimgraph.sidecar import Sidecars

DEFAULT_BATCH = 500


def fingerprint(path: Path | None, stopped: Mapping[str, Any] | None) -> list[Any] | None:
    """What is at a citation's path now, without opening it; None = unknown (always re-read)."""
    if stopped is not None:
        return [stopped.get("status"), stopped.get("reason")]
    try:
        info = os.stat(path)  # type: ignore[arg-type]
    except (FileNotFoundError, NotADirectoryError):
        return ["missing"]
    except OSError:
        return None
    if not statmod.S_ISREG(info.st_mode):
        return ["not-a-file"]
    return ["file", info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


def verdict_row(check: Mapping[str, Any], now: int, print_: list[Any] | None) -> dict[str, Any]:
    """A store row for one check of ``core.audit``."""
    details = {"path": check.get("path"), "root": check.get("root"), "stat": print_,
               "identifiers": check.get("identifiers"), "code_spans": check.get("code_spans")}
    return {"fact_id": check["fact_id"], "evidence": check["evidence"], "file": check.get("file"),
            "verdict": check["verdict"], "reason": check.get("reason"),
            "content_hash": check.get("content_hash"), "checked_at": now, "details": details}


def audit_pass(sh: Shell, now: int, fenced: Callable[[], bool] = lambda: True, *,
               base: str | os.PathLike[str] | None = None, sidecars: Sidecars | None = None,
               environ: Mapping[str, str] | None = None, transaction: Transaction | None = None,
               batch: int = DEFAULT_BATCH, dry_run: bool = False) -> dict[str, Any]:
    """Audit every valid fact citing a file; record changed verdicts; return the counts.

    ``base``/``sidecars``/``environ`` are ``core.audit``'s (how citations find their project
    root: pass the store's Sidecars so each fact is judged against its own session's project).
    Returns {status: ok | dry-run | lease-lost, facts, citations, unchanged (skipped: path and
    stat as recorded), judged (looked at again), rehashed (judged, but the content hash and
    verdict were as recorded), recorded (rows written), by_verdict (latest, over all
    citations), suspect (valid facts with an unsupported or file-missing citation)}.
    """
    store = sh.store
    begin = transaction or store.transaction
    facts = [f for f in store.select_facts(valid_at=now, with_evidence=True)
             if valid_now(f, now) and cited_files(f)]
    stored = {(r["fact_id"], r["evidence"]): r for r in store.get_audit([f["id"] for f in facts])}
    auditor = Auditor(sh, base, sidecars, environ)
    counts: dict[str, Any] = {"status": "dry-run" if dry_run else "ok", "facts": len(facts),
                              "citations": 0, "unchanged": 0, "judged": 0, "rehashed": 0,
                              "recorded": 0, "by_verdict": {}}
    rows: list[dict[str, Any]] = []
    for fact in facts:
        for evidence in cited_files(fact):
            counts["citations"] += 1
            row = _judge(auditor, fact, evidence, stored.get((fact["id"], evidence)), now, counts)
            if row is not None:
                rows.append(row)
    latest = {**stored, **{(r["fact_id"], r["evidence"]): r for r in rows}}
    counts["by_verdict"], counts["suspect"] = P.tally_verdicts(
        (fact["id"], latest[(fact["id"], evidence)]["verdict"])
        for fact in facts for evidence in cited_files(fact))
    if dry_run:
        counts["recorded"] = len(rows)
        return counts
    for start in range(0, len(rows), max(1, batch)):
        if not fenced():
            return {**counts, "status": "lease-lost"}
        chunk = rows[start:start + max(1, batch)]
        with begin():
            store.record_audit(chunk)
        counts["recorded"] += len(chunk)
    return counts


def _judge(auditor: Auditor, fact: Mapping[str, Any], evidence: str,
           prior: Mapping[str, Any] | None, now: int, counts: dict[str, Any]) -> dict[str,
                                                                                      Any] | None:
    """The row to record for one citation, or None when its stored verdict still stands."""
    parsed = P.parse_evidence(evidence)
    root = auditor.root_for(fact.get("episode"))
    path, stopped = locate(parsed["file"], root) if root else (None, NO_ROOT)
    print_ = fingerprint(path, stopped)
    where = str(path) if path else None
    prior_details = (prior or {}).get("details") or {}
    if (prior is not None and print_ is not None and prior_details.get("stat") == print_
            and prior_details.get("path") == where
        and prior_details.get("root") == (str(root) if root else None)):
        counts["unchanged"] += 1
        return None
    check = auditor.check(fact, evidence)
    counts["judged"] += 1
    row = verdict_row(check, now, print_)
    if (prior is not None and row["content_hash"] is not None
            and prior.get("content_hash") == row["content_hash"]
            and prior.get("verdict") == row["verdict"]):
        counts["rehashed"] += 1
    return row

