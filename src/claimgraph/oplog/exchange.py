"""Exchanging logs through a shared directory (a git checkout, a synced folder).

``claimgraph sync --dir DIR`` publishes this store's own log as ``DIR/<writer>.jsonl`` and
the evidence its episodes cite under ``DIR/evidence/``, and brings the other writers' logs
and evidence back. Each writer only ever writes its own file, and only appends to it, so a
git merge of DIR never conflicts. Other writers' logs are merged into the copies kept in
``<db>.oplog/`` line by line (one line per seq; a purge's placeholder wins), so a replay
never depends on DIR still holding them, and a torn line in DIR is simply not taken yet.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

from claimgraph.logic import oplog as L
from claimgraph.oplog import files as F
from claimgraph.private import FILE_MODE, private_dir
from claimgraph.sidecar import Sidecars, atomic_write_text
from claimgraph.store.base import Store

EVIDENCE = "evidence"


def exchange(db: Path, shared: Path, writer: str, scopes: set[str]) -> dict[str, Any]:
    """Publish ours (only ``scopes``: ``share.published``), take theirs; counts for the report.
    Evidence moves after the reconcile (``exchange_evidence``), once we know what is cited."""
    from claimgraph.oplog import identity
    local = F.oplog_dir(db)
    private_dir(local)
    shared.mkdir(parents=True, exist_ok=True)
    same = shared.resolve() == local.resolve()
    if same:
        return {"dir": str(shared), "logs_taken": 0, "published": False,
                "projects": sorted(scopes), "refused": {}}
    check = identity.verifier(identity.read_trusted(local))
    refused: dict[str, int] = {}
    taken = sum(_take(path, local, writer, check, refused) for path in F.log_files(shared))
    published = _publish(F.log_path(local, writer), shared, scopes, identity.signer(local))
    return {"dir": str(shared), "logs_taken": taken, "published": published,
            "projects": sorted(scopes), "refused": refused}


def exchange_evidence(db: Path, shared: Path, writer: str, store: Store) -> dict[str, int]:
    """Send the evidence our published lines cite; take the evidence an episode in this store
    cites and we lack. So evidence no shared fact cites stays home, and what a purge took
    (its episodes deleted on every replica) is never pulled back."""
    mine = DIR_SENT.get(str(shared), set())
    wanted = cited_evidence_names(store)
    return _exchange_evidence(Sidecars(db), shared / EVIDENCE, mine, wanted)


def cited_evidence_names(store: Store) -> set[str]:
    """The evidence names this store's episodes read now."""
    return {e["evidence"] for e in store.list_episodes() if isinstance(e.get("evidence"), str)}


def release_evidence(db: Path, cited_before: set[str], store: Store) -> int:
    """Delete the evidence files a sync's applied effects stopped citing; return how many.

    A teammate's purge arrives as deleted or rewritten episodes. Reconcile leaves files alone
    (it is one transaction over the graph), so without this the words the purge took would stay
    in this replica's evidence tier. Only names cited before the sync and by nothing after it
    go: an evidence file a capture has written but not yet cited was never in ``cited_before``.
    Only files the evidence tier lists are deleted: an episode's evidence name can come from a
    teammate's log, and one that is a path ("../../.bashrc", "/home/…") must delete nothing.
    """
    sidecars = Sidecars(db)
    evidence_dir = sidecars.evidence_dir
    stored = set(sidecars.list_evidence())
    gone = {_tagged(n) for n in cited_before} - {_tagged(n) for n in cited_evidence_names(store)}
    released = sorted(gone & stored)
    for name in released:
        (evidence_dir / name).unlink(missing_ok=True)
    return len(released)


def _tagged(name: str) -> str:
    """An evidence name as its file is named (an episode may cite the bare hex)."""
    name = name.strip().lower()
    return name if name.startswith("sha256-") else f"sha256-{name}"


#: What the last ``_publish`` into a directory cited (set per process; sync runs once).
DIR_SENT: dict[str, set[str]] = {}


def _take(source: Path, local: Path, writer: str, check: Any, refused: dict[str, int]) -> int:
    """Merge a writer's log from DIR into our copy; 1 when our copy changed. A line from DIR
    is taken only from its own writer's file, from a trusted writer, validly signed
    (``identity``); what is refused is counted by reason."""
    if source.name == F.log_path(local, writer).name:
        return 0  # our own log: we are its only author, whatever DIR holds under our name
    target = local / source.name
    owner = source.name[:-len(F.LOG_SUFFIX)]
    lines: dict[int, dict[str, Any]] = {}
    for path in (target, source):
        for _, text, complete in F.read_lines(path):
            line = L.parse(text)
            if line is None or not complete or L.envelope_problem(line):
                continue
            why = "not-its-file" if line["writer"] != owner else None
            why = why or ("bad-text" if not _encodable(line) else None)
            why = why or (check(line) if path is source else None)
            if why:
                if path is source:
                    refused[why] = refused.get(why, 0) + 1
                continue
            lines[line["seq"]] = _winner(lines.get(line["seq"]), line)
    merged = "".join(L.canonical_text(lines[seq]) + "\n" for seq in sorted(lines))
    if target.exists() and target.read_text(encoding="utf-8", errors="replace") == merged:
        return 0
    atomic_write_text(target, merged)
    os.chmod(target, FILE_MODE)
    return 1


def _encodable(line: dict[str, Any]) -> bool:
    try:
        L.canonical_text(line).encode("utf-8")
    except (UnicodeEncodeError, ValueError, RecursionError):
        return False
    return True


def _winner(held: dict[str, Any] | None, line: dict[str, Any]) -> dict[str, Any]:
    if held is None:
        return line
    chosen, _ = L.dedupe([held, line])
    return next(iter(chosen.values()))


def _publish(own: Path, shared: Path, scopes: set[str], sign: Any) -> bool:
    """Replace DIR's copy of our log with the shared view of ours (``share.published``: every
    seq kept, lines about other projects and the user scope withheld)."""
    from claimgraph.oplog.share import cited_evidence, published
    target = shared / own.name
    if not own.exists():
        return False
    lines = [line for _, text, complete in F.read_lines(own) if complete
             for line in [L.parse(text)] if line is not None and not L.envelope_problem(line)]
    shown = [sign(line) for line in published(lines, scopes)]
    DIR_SENT[str(shared)] = cited_evidence(shown)
    text = "".join(L.canonical_text(line) + "\n" for line in shown)
    if target.exists() and target.read_text(encoding="utf-8", errors="replace") == text:
        return False
    atomic_write_text(target, text)
    return True


def _exchange_evidence(sidecars: Sidecars, shared: Path, send: set[str],
                       wanted: set[str]) -> dict[str, int]:
    """Content-addressed, write-once: send what we cite and DIR lacks, take what we cite and
    lack; a file whose content does not match its name is never taken."""
    mine = set(sidecars.list_evidence())
    theirs = {p.name for p in shared.glob("sha256-*")} if shared.is_dir() else set()
    sent = 0
    for name in sorted((mine & send) - theirs):
        shared.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sidecars.evidence_dir / name, shared / name)
        sent += 1
    received = 0
    for name in sorted((theirs & wanted) - mine):
        data = (shared / name).read_bytes()
        if name == "sha256-" + hashlib.sha256(data).hexdigest():
            sidecars.put_evidence(data.decode("utf-8"))
            received += 1
    return {"evidence_sent": sent, "evidence_received": received}
