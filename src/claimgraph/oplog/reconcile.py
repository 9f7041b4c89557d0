"""reconcile: bring the other writers' logs into this store (docs/sync.md, "Reconcile").

A replica's synced content is defined as the fold of every effect it knows — its own and
every other writer's — applied in the canonical order (hlc, writer, seq). That definition is
what makes the result independent of the order logs arrive in, of duplicates and of torn
lines: two replicas that hold the same lines hold the same graph, byte for byte.

Most passes only append to that fold: every new line sorts after everything the store
already reflects (our own writes always do: their clock is floored by every peer clock seen),
so they are applied in order on top. When a line arrives that sorts BEFORE something already
applied (a laptop's log from yesterday, synced today), the fold is recomputed: the graph is
cleared and every log replayed in canonical order, in ONE transaction, so readers see the
old graph or the new one, never a mix. Marks (capture positions, tombstones) and audit
verdicts are local and survive a replay; the evidence tier is files and is never touched.

The bookkeeping: per-writer contiguous high-water marks, settled seqs beyond a
hole in ``applied-beyond``, deferral counts (stuck after 3 passes; ``abandon_deferred``
gives up on them), the entity map, the clock floor, all saved to ``applied.json``.

Duplicates that two writers stated independently are only COUNTED
here, and collapsed by the curator's consolidate pass (a logged write like any
other). Collapsing inside reconcile would make the result depend on where a pass happened to
stop, which is exactly what the fold rules out.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterable

import structlog

from claimgraph.errors import ClaimgraphError
from claimgraph.logic import oplog as L
from claimgraph.logic import oplog_checks as C
from claimgraph.logic.conflicts import conflict_candidates
from claimgraph.logic.entities import duplicate_groups
from claimgraph.oplog import files as F
from claimgraph.oplog.apply import Applier, DEFERRED, DUPLICATE, ERROR, SETTLED, UNKNOWN
from claimgraph.oplog.logged import LoggedStore
from claimgraph.store.base import Store

STATE_MARK = "oplog:state"
QUARANTINED = "quarantined"
#: applied.json's seqs settled as placeholders, per writer, as [first, last] ranges.
WITHHELD = "withheld"
log = structlog.get_logger("claimgraph.sync")
Line = dict[str, Any]


def reconcile(logged: LoggedStore, db: Path | str, *, abandon_deferred: bool = False,
              now: int | None = None) -> dict[str, Any]:
    """Apply what the other writers' logs in ``<db>.oplog/`` hold; return the report."""
    store, directory = logged.inner, F.oplog_dir(db)
    logged.ensure_logging()  # a store with data before its log gets its baseline first
    state = _current_state(store, directory)
    me = logged.oplog.writer
    clock = int(now if now is not None else time.time() * 1000)
    lines, warnings = _read_logs(directory, me)
    chosen, forks = L.dedupe(lines)
    warnings += forks
    own = [line for (writer, _), line in chosen.items() if writer == me]
    foreign = [line for (writer, _), line in chosen.items() if writer != me]
    plan = _plan(state, foreign, own, clock)
    plan["checks"] = _Checks(clock, [*own, *foreign], store)
    with store.transaction():
        outcome = _run(store, state, plan, own, foreign, abandon_deferred)
        _settle(state, plan, outcome, abandon_deferred)
        report_extra = _post_apply(store, outcome["touched"], now)
        store.set_mark(STATE_MARK, state)
    F.write_state(directory, state)
    warnings += _gap_warnings(state, foreign)
    return _report(state, plan, outcome, warnings, report_extra)


def _current_state(store: Store, directory: Path) -> dict[str, Any]:
    """The state committed with the store wins over the file (which mirrors it); both are
    checked for a future format."""
    from_file = F.read_state(directory)
    committed = store.get_mark(STATE_MARK)
    if committed is None:
        return from_file
    if int(committed.get("format", 0)) > L.FORMAT:
        raise ClaimgraphError("future-format", "this store's sync state was written by a "
                                "newer claimgraph", hint="upgrade claimgraph on this machine")
    return {**F.fresh_state(), **committed}


# --- reading ---------------------------------------------------------------------------------
class _Checks:
    """Validation of foreign lines (``logic.oplog_checks``): each line judged once per pass."""

    def __init__(self, now_ms: int, lines: list[Line], store: Store | None = None) -> None:
        self.now_ms = now_ms
        self.authors = _Authors(C.authors_of(sorted(lines, key=L.order_key), ""), store)
        self.found: dict[str, str] = {}

    def problem(self, line: Line) -> str | None:
        key = f"{line['writer']}:{line['seq']}"
        if key not in self.found:
            why = C.shape_problem(line, self.now_ms)
            if why is None:
                why = C.authority_problem(line, self.authors)
            self.found[key] = why or ""
            if not why and line.get("t") in ("delete-facts", "delete-episodes"):
                for name in line["ids"]:  # still its writer's once gone (a tombstone follows)
                    self.authors.known[name] = line["writer"]
            if why:
                log.warning("sync.quarantined", writer=line["writer"], seq=line["seq"],
                            verb=str(line.get("t"))[:40], reason=why)
        return self.found[key] or None


class _Authors:
    """Who made a fact or episode: the log line that created it, else (a purge replaced that
    line by a placeholder) the source a synced fact or episode carries here (``sync:<writer>``);
    what neither names is this store's own."""

    def __init__(self, known: dict[str, str], store: Store | None) -> None:
        self.known, self.store = known, store

    def get(self, name: str, default: str = "") -> str:
        if name in self.known:
            return self.known[name]
        found = None
        if self.store is not None and isinstance(name, str):
            found = self.store.get_fact(name) or self.store.get_episode(name)
        source = str((found or {}).get("source_type") or "")
        return source[len(C.SYNC_SOURCE):] if source.startswith(C.SYNC_SOURCE) else default


def _read_logs(directory: Path, me: str) -> tuple[list[Line], list[dict[str, Any]]]:
    """Every placeable line. A line is taken only from its own writer's file: one naming
    another writer (ours above all) in someone's file is refused where it stands."""
    lines: list[Line] = []
    warnings: list[dict[str, Any]] = []
    for path in F.log_files(directory):
        owner = path.name[:-len(F.LOG_SUFFIX)]
        for number, text, complete in F.read_lines(path):
            if len(text) > C.MAX_LINE_BYTES:
                warnings.append({"warning": "quarantined", "reason": "too-large",
                                 "file": path.name, "line": number})
                continue
            line = L.parse(text)
            if line is None:
                if complete:  # a torn last line is a write or a file sync still under way
                    warnings.append({"warning": "unreadable", "file": path.name, "line": number})
                continue
            problem = L.envelope_problem(line)
            if problem is not None:
                warnings.append({"warning": "bad-envelope", "problem": problem,
                                 "file": path.name, "line": number})
                continue
            if line["writer"] != owner:
                why = "claims-our-writer" if line["writer"] == me else "not-its-file"
                log.warning("sync.quarantined", file=path.name, line=number, reason=why)
                warnings.append({"warning": "quarantined", "reason": why,
                                 "file": path.name, "line": number})
                continue
            lines.append(line)
    return lines, warnings


# --- planning --------------------------------------------------------------------------------
def _unseen(state: dict[str, Any], line: Line) -> bool:
    writer, seq = line["writer"], line["seq"]
    if f"{writer}:{seq}" in set(state["abandoned"]):
        return False
    if line["t"] != "withheld" and L.in_ranges(state.get(WITHHELD, {}).get(writer), seq):
        return True  # settled as a placeholder; its writer shares its project now
    if seq <= int(state["high-water"].get(writer, 0)):
        return False
    return seq not in state["applied-beyond"].get(writer, ())


def _plan(state: dict[str, Any], foreign: list[Line], own: list[Line],
          now_ms: int) -> dict[str, Any]:
    """Which lines are pending, and whether the fold can be extended or must be replayed."""
    pending = [line for line in foreign if _unseen(state, line)]
    # a newer format, or a clock more than the skew window ahead of ours: held, not applied
    # and not lost (a teammate's fast clock is applied once ours catches up to it)
    later = [line for line in pending if L.is_future(line) or _ahead(line, now_ms)]
    held = later
    usable = sorted((line for line in pending if not (L.is_future(line) or _ahead(line, now_ms))),
                    key=L.order_key)
    tried = set(state["deferred"])
    new = [line for line in usable if f"{line['writer']}:{line['seq']}" not in tried]
    reached = [tuple(state["frontier"])] if state.get("frontier") else []
    if own:
        reached.append(max(map(L.order_key, own)))
    top = max(reached, default=None)
    replay = bool(new) and top is not None and L.order_key(usable[0]) <= top
    return {"usable": usable, "held": held, "new": new, "replay": replay}


def _ahead(line: Line, now_ms: int) -> bool:
    return int(line["hlc"]) > now_ms + C.MAX_SKEW_MS


def _run(store: Store, state: dict[str, Any], plan: dict[str, Any], own: list[Line],
         foreign: list[Line], abandon: bool) -> dict[str, Any]:
    """Extend the fold with the pending lines, or replay every log (module docstring)."""
    statuses: dict[str, str] = {}
    if not plan["new"]:
        return {"statuses": statuses, "touched": set(), "applied_keys": []}
    if plan["replay"]:
        state["entity-map"], state["merged"] = {}, {}
        lines = [line for line in [*own, *foreign]
                 if _replayable(state, line, plan["checks"].now_ms)]
        audit = _clear_graph(store)
    else:
        lines, audit = plan["usable"], None
    applier = Applier(store, state["entity-map"], state.setdefault("merged", {}))
    applied_keys = []
    own_writer = own[0]["writer"] if own else None
    checks = plan["checks"]
    for line in sorted(lines, key=L.order_key):
        foreign_line = line["writer"] != own_writer
        if foreign_line and checks.problem(line):
            statuses[f"{line['writer']}:{line['seq']}"] = QUARANTINED
            continue  # settled, never applied: the next line goes on
        status = applier.apply(C.as_teammates(line) if foreign_line else line)
        if status in SETTLED:
            applied_keys.append(L.order_key(line))
        if foreign_line:
            statuses[f"{line['writer']}:{line['seq']}"] = status
    if audit:
        _restore_audit(store, audit)
    return {"statuses": statuses, "touched": applier.touched_subjects,
            "applied_keys": applied_keys}


def _replayable(state: dict[str, Any], line: Line, now_ms: int | None = None) -> bool:
    return (not L.is_future(line) and (now_ms is None or not _ahead(line, now_ms))
            and f"{line['writer']}:{line['seq']}" not in set(state["abandoned"]))


def _clear_graph(store: Store) -> list[dict[str, Any]]:
    """Empty the synced graph for a replay; return the audit verdicts to put back after.
    Predicates stay: every registration is replayed over them, and replays reach the same
    rows (curated ones are replaced whole; staging ones only ever gain fields)."""
    audit = store.get_audit()
    store.delete_facts([f["id"] for f in store.all_facts()])
    store.delete_episodes([e["id"] for e in store.list_episodes()])
    for entity in store.list_entities():
        store.delete_entity(entity["id"])
    return audit


def _restore_audit(store: Store, rows: list[dict[str, Any]]) -> None:
    present = {f["id"] for f in store.get_facts_by_ids(sorted({r["fact_id"] for r in rows}))}
    store.record_audit([r for r in rows if r["fact_id"] in present])


# --- bookkeeping -----------------------------------------------------------------------------
def _settle(state: dict[str, Any], plan: dict[str, Any], outcome: dict[str, Any],
            abandon: bool) -> None:
    """Advance high-water marks over contiguous settled runs; count and maybe abandon deferrals."""
    statuses = outcome["statuses"]
    quarantined = set(state.get("quarantined") or ())
    settled_by_writer: dict[str, set[int]] = {}
    deferred = dict(state["deferred"])
    withheld = {w: list(r) for w, r in (state.get(WITHHELD) or {}).items()}
    for line in plan["usable"]:
        key = f"{line['writer']}:{line['seq']}"
        status = statuses.get(key, DEFERRED if key in deferred else None)
        if status is None:
            continue
        if status in SETTLED or status == QUARANTINED:
            _note_withheld(withheld, line)
        if status == QUARANTINED:
            quarantined.add(key)
        if status in SETTLED or status == QUARANTINED:
            deferred.pop(key, None)
            settled_by_writer.setdefault(line["writer"], set()).add(line["seq"])
            continue
        deferred[key] = int(deferred.get(key, 0)) + 1
        if abandon and deferred[key] >= L.STUCK_AFTER_PASSES:
            deferred.pop(key)
            state["abandoned"] = sorted({*state["abandoned"], key})
            settled_by_writer.setdefault(line["writer"], set()).add(line["seq"])
    for writer, seqs in settled_by_writer.items():
        start = int(state["high-water"].get(writer, 0))
        beyond = set(state["applied-beyond"].get(writer, ()))
        mark, rest = L.high_water(seqs | beyond, start)
        state["high-water"][writer] = mark
        state["applied-beyond"][writer] = rest
    state[WITHHELD] = {w: r for w, r in sorted(withheld.items()) if r}
    state["quarantined"] = sorted(quarantined)
    state["applied-beyond"] = {w: s for w, s in state["applied-beyond"].items() if s}
    state["deferred"] = deferred
    keys = outcome["applied_keys"]
    if keys:
        top = max(keys)
        old = tuple(state["frontier"]) if state.get("frontier") else None
        state["frontier"] = list(max(top, old) if old else top)
    ceiling = plan["checks"].now_ms + C.MAX_SKEW_MS  # a clock from outside is bounded
    hlcs = [line["hlc"] for line in plan["usable"]
            if statuses.get(f"{line['writer']}:{line['seq']}") != QUARANTINED
            and line["hlc"] <= ceiling]
    state["clock"] = max([int(state.get("clock") or 0), *hlcs])


def _note_withheld(withheld: dict[str, list[list[int]]], line: Line) -> None:
    """Remember the seqs settled as ``withheld`` placeholders (as ranges): when the writer
    later shares that project, the line itself arrives under the same seq and is applied
    then (``_unseen``), so enabling a project back-fills it (docs/sync.md)."""
    writer, seq = line["writer"], line["seq"]
    ranges = withheld.get(writer) or []
    withheld[writer] = (L.add_to_ranges(ranges, seq) if line["t"] == "withheld"
                        else L.remove_from_ranges(ranges, seq))


def _gap_warnings(state: dict[str, Any], foreign: list[Line]) -> list[dict[str, Any]]:
    by_writer: dict[str, list[int]] = {}
    for line in foreign:
        by_writer.setdefault(line["writer"], []).append(line["seq"])
    return [{"warning": "seq-gap", "writer": writer, "from": first, "to": last}
            for writer, seqs in sorted(by_writer.items())
            for first, last in L.seq_gaps(seqs, int(state["high-water"].get(writer, 0)))]


def _post_apply(store: Store, touched: Iterable[str], now: int | None) -> dict[str, Any]:
    """Count duplicates among the touched subjects' facts and conflict candidates among the
    valid facts (the curator collapses the one and the judge sweep takes the other)."""
    subjects = sorted(set(touched))
    if not subjects:
        return {"duplicates": 0, "sweep_candidates": 0}
    at = now if now is not None else max(f["recorded_at"] for f in store.all_facts())
    facts = store.get_facts_for(subjects, "out")
    preds = {row["id"]: row for row in store.list_predicates()}
    valid = [f for f in facts if f.get("t_invalid") is None]
    return {"duplicates": sum(len(g) - 1 for g in duplicate_groups(facts, at)),
            "sweep_candidates": len(conflict_candidates(valid, preds, at))}


def _report(state: dict[str, Any], plan: dict[str, Any], outcome: dict[str, Any],
            warnings: list[dict[str, Any]], extra: dict[str, Any]) -> dict[str, Any]:
    pending = {f"{line['writer']}:{line['seq']}" for line in plan["usable"]}
    statuses = [s for k, s in outcome["statuses"].items() if k in pending]
    effects = {"total": len(statuses), "applied": statuses.count("applied"),
               "duplicate": statuses.count(DUPLICATE), "deferred": statuses.count(DEFERRED),
               "unknown": statuses.count(UNKNOWN), "errors": statuses.count(ERROR),
               "quarantined": statuses.count(QUARANTINED)}
    stuck = sorted(k for k, n in state["deferred"].items() if n >= L.STUCK_AFTER_PASSES)
    writers = sorted({line["writer"] for line in plan["usable"]} | set(state["high-water"]))
    report = {"status": "reconciled", "writers": writers, "effects": effects,
              "replayed": bool(plan["replay"] and plan["new"]), "held": len(plan["held"]),
              "stuck": stuck, "abandoned": len(state["abandoned"]), "warnings": warnings,
              "quarantined": len(state.get("quarantined", [])) + sum(
                  1 for w in warnings if w.get("warning") == "quarantined"),
              "duplicates": extra["duplicates"], "sweep_candidates": extra["sweep_candidates"]}
    if stuck:
        report["hint"] = ("some effects could not be applied in 3 passes (a writer's log is "
                          "incomplete); sync again once it is, or give up on them with "
                          "`claimgraph sync --abandon-deferred`")
    elif extra["duplicates"]:
        report["hint"] = "run `claimgraph curate` to collapse the duplicates two writers stated"
    return report

