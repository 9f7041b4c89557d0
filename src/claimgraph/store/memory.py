"""MemoryStore: the Store protocol over plain dicts, for tests and throwaway runs.

It exists to prove the seam: the contract suite runs it beside SQLite, so every behaviour
here is the one SQLite must match (shapes and orders come from ``store.records``). Facts
keep entity ids and are hydrated from the live entity table at read time, so renames and
merges show in old facts. Reads hand out copies; callers can never mutate the store.
"""

from __future__ import annotations

import copy
import json
import sqlite3
from contextlib import closing
from operator import itemgetter
from typing import Any, Iterable, Iterator, Mapping, Sequence

from claimgraph import STORE_FORMAT
from claimgraph.logic.model import (
    FACT_HEAD_FIELDS,
    FACT_HEAD_FIELDS_NO_ENDS,
    SUSPECT_VERDICTS,
)
from claimgraph.logic.names import normalize_entity_name
from claimgraph.store import records as rec
from claimgraph.store.bulk import collector_paused
from claimgraph.store.derived import StoreDefaults
from claimgraph.store.memory_journal import TABLES, Journal, Table
from claimgraph.store.memory_purge import MemoryPurge
from claimgraph.store.nesting import reentrant
from claimgraph.store.records import Record
from claimgraph.store.sqlite_sql import words_match


class MemoryStore(MemoryPurge, StoreDefaults):
    """Dicts and filters. Linear scans are fine: this backend never holds a real memory."""

    def __init__(self) -> None:
        self._journal = Journal()
        self._s: dict[str, dict[Any, Any]] = {
            name: Table(self._journal, counted=name != "marks") for name in TABLES}
        self.depth = 0

    # --- transactions and marks ----------------------------------------------------
    @reentrant
    def transaction(self) -> Iterator[None]:
        """The outermost block journals what it changes (each row's value before its first
        change, ``store.memory_journal``) and, if anything escapes, puts those back: a
        transaction costs what it writes, not a copy of the whole store."""
        self._journal.begin()
        self.depth = 1
        try:
            yield
        except BaseException:
            self._journal.undo()
            raise
        finally:
            self._journal.end()
            self.depth = 0

    def get_mark(self, key: str) -> Any:
        raw = self._s["marks"].get(key)
        return None if raw is None else json.loads(raw)

    def set_mark(self, key: str, value: Any) -> None:
        self._s["marks"][key] = json.dumps(value)

    def list_marks(self, prefix: str = "") -> dict[str, Any]:
        return {key: json.loads(raw) for key, raw in sorted(self._s["marks"].items())
                if key.startswith(prefix)}

    def write_count(self) -> int:
        """Bumped by the writes the tables report (``store.memory_journal``): each outside a
        transaction, once per committed transaction that wrote; marks never move it."""
        return self._journal.writes

    # --- entities ------------------------------------------------------------------
    def insert_entity(self, entity: Record) -> Record:
        row = rec.entity_record(entity)
        if row["id"] in self._s["entities"]:
            raise rec.exists("entity", row["id"])
        self._s["entities"][row["id"]] = row
        return _entity_copy(row)

    def insert_entities(self, entities: Iterable[Record]) -> list[Record]:
        """All or nothing: every record is checked before the first is kept."""
        rows, seen = [rec.entity_record(e) for e in entities], set(self._s["entities"])
        for row in rows:
            if row["id"] in seen:
                raise rec.exists("entity", row["id"])
            seen.add(row["id"])
        return [self.insert_entity(row) for row in rows]

    def get_entity(self, name: str, scope: str) -> Record | None:
        hits = [e for e in self._s["entities"].values()
                if e["name"] == name and e["scope"] == scope]
        return _entity_copy(min(hits, key=lambda e: e["id"])) if hits else None

    def get_entity_by_id(self, entity_id: str) -> Record | None:
        row = self._s["entities"].get(entity_id)
        return _entity_copy(row) if row else None

    def find_entities(self, name: str, scope: str | None) -> list[Record]:
        norm = normalize_entity_name(name)
        hits = [e for e in self._s["entities"].values()
                if (scope is None or e["scope"] == scope) and _norm_match(e, norm)]
        return [_entity_copy(e) for e in sorted(hits, key=_entity_order)]

    def find_entities_many(self, names: Iterable[str],
                           scope: str | None) -> dict[str, list[Record]]:
        return {name: self.find_entities(name, scope) for name in set(names)}

    def update_entity(self, entity_id: str, *, name: str | None = None, type: str | None = None,
                      add_aliases: Sequence[str] = (),
                      remove_aliases: Sequence[str] = ()) -> Record:
        row = self._s["entities"].get(entity_id)
        if row is None:
            raise rec.not_found("entity", entity_id)
        row["name"] = name or row["name"]
        row["type"] = type or row["type"]
        row["aliases"] = rec.merge_aliases(row["aliases"], add_aliases, remove_aliases)
        return _entity_copy(row)

    def repoint_facts(self, from_id: str, to_id: str) -> int:
        if to_id not in self._s["entities"]:
            raise rec.not_found("entity", to_id)
        moved = 0
        for fact in self._s["facts"].values():  # only rows that change are written
            hit = from_id in (fact["subject"], fact["object_ref"])
            if fact["subject"] == from_id:
                fact["subject"] = to_id
            if fact["object_ref"] == from_id:
                fact["object_ref"] = to_id
            moved += hit
        return moved

    def delete_entity(self, entity_id: str) -> None:
        if any(entity_id in (f["subject"], f["object_ref"]) for f in self._s["facts"].values()):
            raise rec.entity_in_use(entity_id)
        self._s["entities"].pop(entity_id, None)

    def list_entities(self, type: str | None = None, scope: str | None = None) -> list[Record]:
        rows = [e for e in self._s["entities"].values()
                if (type is None or e["type"] == type) and (scope is None or e["scope"] == scope)]
        return [_entity_copy(e) for e in sorted(rows, key=_entity_order)]

    # --- facts ---------------------------------------------------------------------
    def insert_facts(self, facts: Iterable[Record]) -> None:
        """Validate the whole batch first, so a refusal leaves nothing half-inserted."""
        rows = [rec.stored_fact(f) for f in facts]
        seen: set[str] = set()
        for row in rows:
            self._check_new_fact(row, seen)
            seen.add(row["id"])
        for row in rows:
            self._s["facts"][row["id"]] = row

    def _check_new_fact(self, row: Record, seen: set[str]) -> None:
        if row["id"] in self._s["facts"] or row["id"] in seen:
            raise rec.exists("fact", row["id"])
        for ref in (row["subject"], row["object_ref"]):
            if ref is not None and ref not in self._s["entities"]:
                raise rec.not_found("entity", ref)

    def get_fact(self, fact_id: str) -> Record | None:
        row = self._s["facts"].get(fact_id)
        return self._hydrate(row) if row else None

    def get_facts_by_ids(self, ids: Iterable[str]) -> list[Record]:
        facts = self._s["facts"]
        return [self._hydrate(facts[i]) for i in ids if i in facts]

    def get_facts_for(self, entity_ids: Iterable[str], direction: str = "out",
                      predicates: Iterable[str] | None = None) -> list[Record]:
        rec.check_direction(direction)
        ids, preds = set(entity_ids), rec.as_list(predicates)
        return self._sorted(
            f for f in self._s["facts"].values()
            if _touches(f, ids, direction) and (preds is None or f["predicate"] in preds))

    def get_fact_heads_for(self, entity_ids: Iterable[str], direction: str = "out", *,
                           ends: bool = True) -> list[Record]:
        rec.check_direction(direction)
        ids = set(entity_ids)
        fields = FACT_HEAD_FIELDS if ends else FACT_HEAD_FIELDS_NO_ENDS
        return [{field: row[field] for field in fields}
                for row in self._s["facts"].values() if _touches(row, ids, direction)]

    def select_facts(self, *, ids: Iterable[str] | None = None, source_type: str | None = None,
                     predicates: Iterable[str] | None = None, scopes: Iterable[str] | None = None,
                     episodes: Iterable[str] | None = None, recorded_before: int | None = None,
                     conflicted: bool = False, valid_cheap: bool = False,
                     with_evidence: bool = False, valid_at: int | None = None) -> list[Record]:
        lists = ((ids, "id"), (predicates, "predicate"), (scopes, "scope"), (episodes, "episode"))
        tests = [(field, set(allowed)) for values, field in lists
                 if (allowed := rec.as_list(values)) is not None]

        def keep(f: Record) -> bool:
            return (all(f[field] in allowed for field, allowed in tests)
                    and (source_type is None or f["source_type"] == source_type)
                    and (recorded_before is None or f["recorded_at"] < recorded_before)
                    and (not conflicted or bool(f["conflicts"]))
                    and (not valid_cheap or f["t_invalid"] is None)
                    and (valid_at is None or f["t_invalid"] is None or f["t_invalid"] > valid_at)
                    and (not with_evidence or bool(f["evidence"])))
        return self._sorted(filter(keep, self._s["facts"].values()))

    def all_facts(self) -> list[Record]:
        # a stable sort: ties keep write order, as the SQL stores' pk does
        rows = sorted(self._s["facts"].values(), key=lambda f: f["recorded_at"])
        return [self._hydrate(f) for f in rows]

    def repoint_predicate(self, from_id: str, to_id: str) -> int:
        rows = [f for f in self._s["facts"].values() if f["predicate"] == from_id]
        for fact in rows:
            fact["predicate"] = to_id
        return len(rows)

    def invalidate(self, fact_id: str, at: int, kind: str | None = None,
                   reason: str | None = None, successor: str | None = None) -> None:
        self._fact_row(fact_id).update(t_invalid=at, invalidation_kind=kind,
                                       invalidation_reason=reason, successor=successor)

    def link_conflicts(self, fact_id: str, ids: Iterable[str]) -> None:
        row = self._fact_row(fact_id)
        row["conflicts"] = sorted({*row["conflicts"], *ids})

    def unlink_conflicts(self, fact_id: str, ids: Iterable[str]) -> None:
        row, gone = self._fact_row(fact_id), set(ids)
        row["conflicts"] = [c for c in row["conflicts"] if c not in gone]

    def reinforce(self, fact_id: str, at: int, confidence: float,
                  source_type: str | None = None) -> None:
        row = self._fact_row(fact_id)
        row.update(last_reinforced_at=at, confidence=float(confidence))
        row["source_type"] = source_type or row["source_type"]

    def _fact_row(self, fact_id: str) -> Record:
        row: Record | None = self._s["facts"].get(fact_id)
        if row is None:
            raise rec.not_found("fact", fact_id)
        return row

    def _hydrate(self, row: Record) -> Record:
        fact = dict(row, conflicts=list(row["conflicts"]), evidence=list(row["evidence"]))
        fact["subject"] = self._entity_or_dangling(row["subject"])
        if row["object_ref"] is not None:
            fact["object_ref"] = self._entity_or_dangling(row["object_ref"])
        return fact

    def _entity_or_dangling(self, entity_id: str) -> Record:
        row = self._s["entities"].get(entity_id)
        return _entity_copy(row) if row else rec.dangling_entity(entity_id)

    def _sorted(self, rows: Iterable[Record]) -> list[Record]:
        with collector_paused():  # a whole store's keys and copies at once (``store.bulk``)
            return [self._hydrate(f) for f in sorted(rows, key=_FACT_ORDER)]

    # --- curation state --------------------------------------------------------------
    def set_dormant(self, ids: Iterable[str], at: int) -> int:
        rows = [self._s["facts"][i] for i in set(rec.as_list(ids) or []) if i in self._s["facts"]]
        fresh = [r for r in rows if r["dormant_since"] is None]
        for row in fresh:
            row["dormant_since"] = int(at)
        return len(fresh)

    def revive(self, ids: Iterable[str]) -> int:
        rows = [self._s["facts"][i] for i in set(rec.as_list(ids) or []) if i in self._s["facts"]]
        dormant = [r for r in rows if r["dormant_since"] is not None]
        for row in dormant:
            row["dormant_since"] = None
        return len(dormant)

    def dormant_fact_ids(self) -> list[str]:
        return sorted(i for i, f in self._s["facts"].items() if f["dormant_since"] is not None)

    def record_audit(self, rows: Iterable[Record]) -> None:
        batch = [rec.audit_record(r) for r in rows]
        for row in batch:
            if row["fact_id"] not in self._s["facts"]:
                raise rec.not_found("fact", row["fact_id"])
        for row in batch:
            self._s["audit"][(row["fact_id"], row["evidence"])] = row

    def get_audit(self, fact_ids: Iterable[str] | None = None) -> list[Record]:
        wanted = rec.as_list(fact_ids)
        keep = None if wanted is None else set(wanted)
        rows = [r for r in self._s["audit"].values() if keep is None or r["fact_id"] in keep]
        return [copy.deepcopy(r) for r in sorted(rows, key=rec.audit_order)]

    def suspect_fact_ids(self) -> list[str]:
        return sorted({r["fact_id"] for r in self._s["audit"].values()
                       if r["verdict"] in SUSPECT_VERDICTS})

    def scope_counts(self) -> dict[str, Record]:
        suspect = set(self.suspect_fact_ids())
        counts: dict[str, list[Any]] = {}
        for row in self._s["facts"].values():
            entry = counts.setdefault(row["scope"], [0, 0, 0, 0, None])
            valid = row.get("t_invalid") is None
            entry[0] += 1
            entry[1] += valid
            entry[2] += valid and row.get("dormant_since") is not None
            entry[3] += valid and row["id"] in suspect
            entry[4] = max(entry[4] or row["recorded_at"], row["recorded_at"])
        return {scope: rec.scope_count_record(*counts[scope]) for scope in sorted(counts)}

    # --- usage ---------------------------------------------------------------------
    def predicate_usage(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for fact in self._s["facts"].values():
            counts[fact["predicate"]] = counts.get(fact["predicate"], 0) + 1
        return rec.counted(counts.items())

    def entity_usage(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for fact in self._s["facts"].values():
            for ref in {fact["subject"], fact["object_ref"]} - {None}:
                counts[ref] = counts.get(ref, 0) + 1
        return rec.counted(counts.items())

    # --- episodes ------------------------------------------------------------------
    def open_episode(self, episode: Record) -> Record:
        row = rec.episode_record(episode)
        if row["id"] in self._s["episodes"]:
            raise rec.exists("episode", row["id"])
        if row["ref"] is not None and self.get_episode_by_ref(row["ref"]):
            raise rec.exists("episode", row["id"], ref=row["ref"])
        self._s["episodes"][row["id"]] = row
        return dict(row)

    def close_episode(self, episode_id: str, summary: str | None, at: int) -> None:
        row = self._s["episodes"].get(episode_id)
        if row is None:
            raise rec.not_found("episode", episode_id)
        row.update(summary=summary, closed_at=at)

    def get_episode(self, episode_id: str) -> Record | None:
        row = self._s["episodes"].get(episode_id)
        return dict(row) if row else None

    def get_episode_by_ref(self, ref: str) -> Record | None:
        hits = [e for e in self._s["episodes"].values() if e["ref"] == ref]
        return dict(hits[0]) if hits else None

    def list_episodes(self) -> list[Record]:
        rows = sorted(self._s["episodes"].values(),
                      key=lambda e: (rec.nulls_first(e["opened_at"]), e["id"]))
        return [dict(e) for e in rows]

    # --- predicates ----------------------------------------------------------------
    def get_predicate(self, pred_id: str) -> Record | None:
        row = self._s["predicates"].get(pred_id)
        return json.loads(row) if row else None

    def list_predicates(self, category: str | None = None,
                        status: str | None = None) -> list[Record]:
        rows = [json.loads(self._s["predicates"][k]) for k in sorted(self._s["predicates"])]
        return [r for r in rows if (category is None or r["category"] == category)
                and (status is None or r["status"] == status)]

    def register_predicate(self, row: Record) -> None:
        merged = rec.registered_predicate(self.get_predicate(str(row.get("id") or "")), row)
        self._s["predicates"][merged["id"]] = json.dumps(merged)

    # --- search and housekeeping ---------------------------------------------------
    def search(self, query: str, limit: int = 50, *,
               heads: bool = False) -> dict[str, list[Record]]:
        """Case-insensitive substring, with the same short-query rule and orders as SQLite."""
        if not rec.search_text_ok(query):
            return {"entities": [], "facts": [], "episodes": []}
        needle = query.lower()
        eps = [e for e in self._s["episodes"].values() if needle in (e["summary"] or "").lower()]
        return {
            "entities": [_entity_copy(e) for e in sorted(self._named(needle), key=_entity_order)
                         [:limit]],
            "facts": self.search_facts(query, limit, heads=heads),
            "episodes": [dict(e) for e in sorted(eps, key=rec.search_episode_order)[:limit]],
        }

    def search_facts(self, query: str, limit: int = 50, *, heads: bool = False) -> list[Record]:
        if not rec.search_text_ok(query):
            return []
        needle = query.lower()
        hit_ids = {e["id"] for e in self._named(needle)}
        facts = [f for f in self._s["facts"].values()
                 if needle in (f["object_lit"] or "").lower()
                 or hit_ids & {f["subject"], f["object_ref"]}]
        found = [self._hydrate(f) for f in sorted(facts, key=rec.search_fact_order)[:limit]]
        return [rec.search_head(f) for f in found] if heads else found

    def rank_words(self, words: Sequence[str], limit: int = 50, *,
                   heads: bool = False, at: int | None = None) -> list[Record] | None:
        """SQLite's word ranking (porter stems, BM25 with each word's rarity among the open
        facts, ties by the literal) over the open facts' literals, from a throwaway in-memory
        FTS5 index of every literal, as SQLite's: the same tokenizer and the same scores, so
        both backends give the same order (``logic.query_words.open_word_scores``)."""
        wanted = [w for w in words if w and w.strip()]
        texts = [(f["id"], f["object_lit"], (f["t_invalid"] is None
                  or (at is not None and f["t_invalid"] > at))
                  and (at is None or f["t_valid"] <= at))
                 for f in self._s["facts"].values() if f["object_lit"] is not None]
        if not wanted or not texts or limit == 0:
            return []
        from claimgraph.logic import query_words as QW
        with closing(sqlite3.connect(":memory:")) as con:  # every literal counts, as in SQLite
            con.execute("CREATE VIRTUAL TABLE w USING fts5(id UNINDEXED, object_lit, open"
                        " UNINDEXED, tokenize='porter unicode61 remove_diacritics 2')")
            con.executemany("INSERT INTO w (id, object_lit, open) VALUES (?, ?, ?)", texts)
            hits = [con.execute("SELECT id, rank, open FROM w WHERE w MATCH ?",
                                (f"object_lit : ({words_match([word])})",)).fetchall()
                    for word in wanted]
        scores = QW.open_word_scores(hits, len(texts))
        literal = {fact_id: (self._s["facts"][fact_id]["object_lit"], str(fact_id))
                   for fact_id in QW.contenders(scores, limit)}
        ids = QW.best_by_score(scores, literal, limit)
        found = [self._hydrate(self._s["facts"][fact_id]) for fact_id in ids]
        return [rec.search_head(f) for f in found] if heads else found

    def episode_neighbours(self, ids: Iterable[str],
                           span: int) -> list[tuple[str, int, Record, bool]]:
        """The facts' places in the order they were inserted stand for SQL's row keys."""
        wanted = set(ids)
        if not wanted or span < 1:
            return []
        order = list(self._s["facts"].values())
        out = []
        for place, fact in enumerate(order):
            if fact["id"] not in wanted or fact["episode"] is None:
                continue
            for other in range(max(0, place - span), min(len(order), place + span + 1)):
                if other != place and order[other]["episode"] == fact["episode"]:
                    before = order[other - 1] if other > 0 else None
                    answers = (before is not None and before["episode"] == fact["episode"]
                               and rec.asks(before))
                    out.append((fact["id"], other - place,
                                {f: order[other][f] for f in FACT_HEAD_FIELDS}, answers))
        return out

    def episode_members(self, ids: Iterable[str], cap: int,
                        among: Iterable[str] | None = None, *,
                        episodes: Mapping[str, str | None] | None = None
                        ) -> list[tuple[str, str]]:
        """Every fact is looked at (the tests' store): the episodes' sizes are counted whole
        (``episodes``, known already, saves nothing here)."""
        wanted = set(ids)
        keep = None if among is None else set(among)
        facts = self._s["facts"]
        given = {facts[i]["episode"] for i in wanted if i in facts and facts[i]["episode"]}
        if not given or cap < 1:
            return []
        members = [(f["id"], f["episode"]) for f in facts.values() if f["episode"] in given]
        sizes: dict[str, int] = {}
        for _, episode in members:
            sizes[episode] = sizes.get(episode, 0) + 1
        if keep is None:
            return [(fact_id, episode) for fact_id, episode in members if sizes[episode] <= cap]
        shared: dict[str, int] = {}
        for fact_id, episode in members:
            if fact_id in keep:
                shared[episode] = shared.get(episode, 0) + 1
        return [(fact_id, episode) for fact_id, episode in members
                if sizes[episode] <= cap and fact_id in keep and shared[episode] >= 2]

    def _named(self, needle: str) -> list[Record]:
        """Entities whose name or an alias contains the (lower-cased) text."""
        return [e for e in self._s["entities"].values()
                if any(needle in text.lower() for text in [e["name"], *e["aliases"]])]

    def stats(self) -> dict[str, Any]:
        facts = self._s["facts"].values()
        statuses: dict[Any, int] = {}
        for raw in self._s["predicates"].values():
            status = json.loads(raw)["status"]
            statuses[status] = statuses.get(status, 0) + 1
        valid = sum(1 for f in facts if f["t_invalid"] is None)
        return rec.stats_record(STORE_FORMAT, len(self._s["entities"]), len(facts), valid,
                                len(self._s["episodes"]), statuses)

    def is_empty(self) -> bool:
        return not (self._s["entities"] or self._s["facts"] or self._s["episodes"])

    def check_integrity(self, quick: bool = True, limit: int = 20) -> list[str]:
        """A store in a dict has no pages or indexes that could disagree: nothing to find."""
        return []

    def close(self) -> None:
        """Nothing to release; kept for the protocol."""


#: ``records.fact_order`` (t_valid, then id) as one C call per fact.
_FACT_ORDER = itemgetter("t_valid", "id")


def _entity_copy(row: Record) -> Record:
    return dict(row, aliases=list(row["aliases"]))


def _entity_order(entity: Record) -> tuple[Any, ...]:
    return (entity["name"], entity["id"])


def _norm_match(entity: Record, norm: str) -> bool:
    names = [entity["name"], *entity["aliases"]]
    return any(normalize_entity_name(n) == norm for n in names)


def _touches(fact: Record, ids: set[str], direction: str) -> bool:
    out = fact["subject"] in ids
    inward = fact["object_ref"] in ids
    return out if direction == "out" else inward if direction == "in" else out or inward
