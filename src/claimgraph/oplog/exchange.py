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

EVIDENCE = "evidence"


def exchange(db: Path, shared: Path, writer: str) -> dict[str, Any]:
    """Publish ours, take theirs; returns counts for the report."""
    local = F.oplog_dir(db)
    private_dir(local)
    shared.mkdir(parents=True, exist_ok=True)
    same = shared.resolve() == local.resolve()
    taken = 0 if same else sum(_take(path, local, writer) for path in F.log_files(shared))
    published = False if same else _publish(F.log_path(local, writer), shared)
    evidence = _exchange_evidence(Sidecars(db), shared / EVIDENCE)
    return {"dir": str(shared), "logs_taken": taken, "published": published, **evidence}


def _take(source: Path, local: Path, writer: str) -> int:
    """Merge a writer's log from DIR into our copy; 1 when our copy changed."""
    if source.name == F.log_path(local, writer).name:
        return 0  # our own log: we are its only author
    target = local / source.name
    owner = source.name[:-len(F.LOG_SUFFIX)]
    lines: dict[int, dict[str, Any]] = {}
    for path in (target, source):
        for _, text, complete in F.read_lines(path):
            line = L.parse(text)
            if line is None or not complete or L.envelope_problem(line):
                continue
            if line["writer"] != owner:  # a line is taken from its own writer's file only
                continue
            if not _encodable(line):  # a lone surrogate: not text, never taken
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


def _publish(own: Path, shared: Path) -> bool:
    """Replace DIR's copy of our log with ours (append-only, so ours is always the superset)."""
    target = shared / own.name
    if not own.exists():
        return False
    data = own.read_bytes()
    complete = data[:data.rfind(b"\n") + 1]
    if target.exists() and target.read_bytes() == complete:
        return False
    atomic_write_text(target, complete.decode("utf-8", "replace"))
    return True


def _exchange_evidence(sidecars: Sidecars, shared: Path) -> dict[str, int]:
    """Content-addressed, write-once: copy what either side lacks; a file whose content does
    not match its name is never taken."""
    mine = set(sidecars.list_evidence())
    theirs = {p.name for p in shared.glob("sha256-*")} if shared.is_dir() else set()
    sent = 0
    for name in sorted(mine - theirs):
        shared.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sidecars.evidence_dir / name, shared / name)
        sent += 1
    received = 0
    for name in sorted(theirs - mine):
        data = (shared / name).read_bytes()
        if name == "sha256-" + hashlib.sha256(data).hexdigest():
            sidecars.put_evidence(data.decode("utf-8"))
            received += 1
    return {"evidence_sent": sent, "evidence_received": received}
