"""The Store protocol: the one seam between the shell and storage (docs/store.md).

Every method is raw: no policy, no clock, no id minting. Policy lives in ``logic``; the shell
(``core``) mints ids and times and passes complete records in. Records are the plain dicts
described in ``claimgraph.logic.model``; facts come back with ``subject`` and ``object_ref``
HYDRATED from the live entity table (so renames and merges show in old facts), with
``conflicts`` and ``evidence`` always lists.

Backends: ``store.sqlite.SqliteStore`` (a real file or ":memory:") and
``store.postgres.PostgresStore`` (a team's server), both ``store.sql.SqlStore`` with their own
dialect, and ``store.memory.MemoryStore`` (tests). One contract suite runs against all of them
(docs/store.md, "Adding a store backend").

Optional fast paths, answered in SQL, are classes in ``store.fast_paths``, checked with
``isinstance`` by their callers (a store without them is read whole and answered by their
definitions in ``logic``): ``Snapshots`` (several reads from one snapshot), ``ContextHeads``
(SQLite; ``logic.briefing_shortlist``), ``ContextSections`` (SQLite and PostgreSQL:
``logic.briefing_sections``, a project page's sections, paged, and ``logic.time_travel``, the
viewer's time travel), ``KnownNames`` and ``CurationReads`` (SQLite: capture's subject check
and the curator's reads, ``store.sqlite_curation``).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Iterable, Mapping, Protocol, Sequence

Record = dict[str, Any]


class Store(Protocol):
    # --- transactions and marks ---------------------------------------------------------
    def transaction(self) -> AbstractContextManager[None]:
        """All writes inside commit together or not at all. Re-entrant (inner blocks join)."""

    def get_mark(self, key: str) -> Any:
        """A small JSON value kept beside the data (high-water marks, dirty flags); None if
        unset."""

    def set_mark(self, key: str, value: Any) -> None:
        """Write a mark in the current transaction (so a mark and the data it covers commit
        together)."""

    def list_marks(self, prefix: str = "") -> dict[str, Any]:
        """Every mark whose key starts with ``prefix`` (a dump carries the capture marks)."""

    def write_count(self) -> int:
        """The write counter: it moves whenever a write changed anything but marks (mark
        writes never move it), and never goes back; 0 for a store never written
        (docs/store.md, "The write counter")."""

    # --- entities ------------------------------------------------------------------------
    def insert_entity(self, entity: Record) -> Record:
        """Insert a complete entity {id, name, type, scope, aliases}; return it."""

    def insert_entities(self, entities: Iterable[Record]) -> list[Record]:
        """Batch form of insert_entity, all or nothing (one round trip where the backend
        allows); the records in the order given."""

    def get_entity(self, name: str, scope: str) -> Record | None:
        """Exact name match within scope."""

    def get_entity_by_id(self, entity_id: str) -> Record | None: ...

    def find_entities(self, name: str, scope: str | None) -> list[Record]:
        """Candidates matching on name, alias, normalized name or normalized alias.

        May over-return; ``logic.entities.pick_entity_match`` decides. scope None = any scope.
        """

    def find_entities_many(self, names: Iterable[str],
                           scope: str | None) -> dict[str, list[Record]]:
        """``find_entities`` for many names at once: {name: what find_entities answers}."""

    def update_entity(self, entity_id: str, *, name: str | None = None, type: str | None = None,
                      add_aliases: Sequence[str] = (),
                      remove_aliases: Sequence[str] = ()) -> Record:
        """Adds apply before removes. Returns the updated entity."""

    def repoint_facts(self, from_id: str, to_id: str) -> int:
        """Move every fact's subject/object_ref from one entity to another; return the count."""

    def delete_entity(self, entity_id: str) -> None: ...

    def list_entities(self, type: str | None = None, scope: str | None = None) -> list[Record]:
        """Sorted by name, then id."""

    # --- facts -----------------------------------------------------------------------------
    def insert_fact(self, fact: Record) -> None:
        """Raw insert of a complete fact (subject/object_ref given as entity dicts or ids)."""

    def insert_facts(self, facts: Iterable[Record]) -> None:
        """Batch form of insert_fact (one round trip where the backend allows)."""

    def insert_fact_rows(self, rows: Sequence[list[Any]], guarded: bool = True) -> None:
        """``insert_facts`` for facts given as their rows: each fact's values in
        ``logic.oplog.FACT_ROW_KEYS`` order, its ends as entity ids (``store.fact_rows``; what
        the batch ingest builds for a plain insert).

        ``guarded`` False, inside a caller's transaction: that whole transaction is the unit
        instead of this call. A backend may then skip its own guard (SQLite's savepoint), and a
        failure midway must leave the transaction able only to roll back (SQLite's commit
        refuses it: ``transaction-doomed``), so a half-done insert is never stored."""

    def get_fact(self, fact_id: str) -> Record | None: ...

    def get_facts_by_ids(self, ids: Iterable[str]) -> list[Record]:
        """Facts for the ids that exist, in the order of ``ids``."""

    def get_facts(self, entity_id: str, direction: str = "out",
                  predicates: Iterable[str] | None = None) -> list[Record]:
        """Facts touching the entity (out: as subject, in: as object_ref, both), INCLUDING
        invalidated ones, optionally restricted to predicates. Sorted by t_valid, then id."""

    def get_facts_for(self, entity_ids: Iterable[str], direction: str = "out",
                      predicates: Iterable[str] | None = None) -> list[Record]:
        """Batched get_facts over several entities (each fact once). Sorted by t_valid, then id."""

    def get_fact_heads_for(self, entity_ids: Iterable[str], direction: str = "out", *,
                           ends: bool = True) -> list[Record]:
        """The facts ``get_facts_for`` returns, cut to ``logic.model.FACT_HEAD_FIELDS`` with
        ``subject`` and ``object_ref`` as bare ids (no links, no evidence), in no particular
        order: enough to rank thousands of candidates before reading whole the few a reader
        is shown. ``ends=False``: without ``subject`` and ``object_ref``
        (``FACT_HEAD_FIELDS_NO_ENDS``), for facts ranked but never followed."""

    def select_facts(self, *, ids: Iterable[str] | None = None, source_type: str | None = None,
                     predicates: Iterable[str] | None = None, scopes: Iterable[str] | None = None,
                     episodes: Iterable[str] | None = None, recorded_before: int | None = None,
                     conflicted: bool = False, valid_cheap: bool = False,
                     with_evidence: bool = False, valid_at: int | None = None) -> list[Record]:
        """Criteria are ANDed; over-inclusion is allowed. conflicted: has conflict links;
        valid_cheap: no end recorded (``t_invalid`` absent: the curator's open facts);
        valid_at: not ended at that instant (no end recorded, or one after it: what readers
        are shown as believed then, a fact set to end later included; ``t_valid`` is left to
        the caller); with_evidence: cites something (the audit's candidates). Sorted by
        t_valid, then id."""

    def get_history(self, entity_id: str, predicate: str) -> list[Record]:
        """Every version (valid and invalidated) of subject+predicate, sorted by t_valid, id."""

    def all_facts(self) -> list[Record]:
        """Every fact, sorted by recorded_at, then the order they were written in (never by
        the random id: facts a batch writes in one millisecond would come out shuffled)."""

    def repoint_predicate(self, from_id: str, to_id: str) -> int: ...

    def invalidate(self, fact_id: str, at: int, kind: str | None = None,
                   reason: str | None = None, successor: str | None = None) -> None:
        """Close the fact's valid time at ``at`` and record why."""

    def link_conflicts(self, fact_id: str, ids: Iterable[str]) -> None:
        """Add conflict links (kept on the newer fact), without duplicates."""

    def unlink_conflicts(self, fact_id: str, ids: Iterable[str]) -> None: ...

    def reinforce(self, fact_id: str, at: int, confidence: float,
                  source_type: str | None = None) -> None:
        """Set last_reinforced_at and confidence (and the source type when given)."""

    # --- curation state: dormancy and audit verdicts (docs/curator.md) ---------------------------
    def set_dormant(self, ids: Iterable[str], at: int) -> int:
        """Mark facts dormant since ``at``; an already dormant fact keeps its first time.
        Unknown ids are ignored. Returns how many facts changed."""

    def revive(self, ids: Iterable[str]) -> int:
        """Clear the dormant mark; unknown or active ids are ignored. Returns how many changed."""

    def dormant_fact_ids(self) -> list[str]:
        """Ids of every dormant fact (valid or not), sorted."""

    def record_audit(self, rows: Iterable[Record]) -> None:
        """Upsert audit verdicts keyed by (fact_id, evidence): {fact_id, evidence, file, verdict,
        reason, content_hash, checked_at, details}. A row for an unknown fact is refused
        (fact-not-found) and nothing of the batch is written."""

    def get_audit(self, fact_ids: Iterable[str] | None = None) -> list[Record]:
        """Stored verdicts (all, or for the given facts), sorted by fact_id, then evidence."""

    def suspect_fact_ids(self) -> list[str]:
        """Facts with a citation whose latest verdict is unsupported or file-missing, sorted.
        Raw: invalidated facts are included; readers decide what to show."""

    def scope_counts(self) -> dict[str, Record]:
        """scope -> {total, valid, dormant, suspect, last_recorded_at}, sorted by scope, counted
        without reading a fact (an overview of every project). ``valid``: no t_invalid;
        ``dormant`` and ``suspect`` (a latest verdict in SUSPECT_VERDICTS) count valid facts."""

    # --- usage -----------------------------------------------------------------------------
    def predicate_usage(self) -> dict[str, int]:
        """predicate id -> number of facts using it."""

    def entity_usage(self) -> dict[str, int]:
        """entity id -> number of facts naming it as subject or object."""

    # --- episodes --------------------------------------------------------------------------
    def open_episode(self, episode: Record) -> Record: ...

    def close_episode(self, episode_id: str, summary: str | None, at: int) -> None: ...

    def get_episode(self, episode_id: str) -> Record | None: ...

    def get_episode_by_ref(self, ref: str) -> Record | None: ...

    def list_episodes(self) -> list[Record]:
        """Sorted by opened_at, then id."""

    # --- predicates ------------------------------------------------------------------------
    def get_predicate(self, pred_id: str) -> Record | None: ...

    def list_predicates(self, category: str | None = None,
                        status: str | None = None) -> list[Record]:
        """Sorted by id."""

    def register_predicate(self, row: Record) -> None:
        """Curated (non-``x/*``) rows are RECONCILED: replaced whole, so a dropped field
        disappears. ``x/*`` rows are AMENDED: given non-None fields merged over the stored row."""

    # --- search and housekeeping -----------------------------------------------------------
    def search(self, query: str, limit: int = 50, *,
               heads: bool = False) -> dict[str, list[Record]]:
        """{entities, facts, episodes} matching the text in entity names/aliases, literal
        objects and episode summaries (SQLite: FTS5; memory: case-insensitive substring).
        Facts include those whose subject or object entity matched. ``heads``: the facts cut
        to their heads, as ``get_fact_heads_for`` gives them (to rank before reading whole
        the few shown)."""

    def search_facts(self, query: str, limit: int = 50, *, heads: bool = False) -> list[Record]:
        """``search(query, limit, heads=heads)["facts"]`` alone (search asks once per query
        word and keeps only the facts of all but the first)."""

    def rank_words(self, words: Sequence[str], limit: int = 50, *,
                   heads: bool = False, at: int | None = None) -> list[Record] | None:
        """Open facts whose literal object holds any of ``words`` (English stems: "painting"
        finds "painted"), most relevant first (BM25 in SQLite and memory; ``ts_rank`` over the
        'english' tsvector in PostgreSQL), ties by id; at most ``limit``. Open: no end
        recorded, or with ``at`` none before it (a fact set to end later, as search shows
        it). None when the store predates the word index (format < 6, read as it is): search
        then ranks by the trigram index alone. See docs/search.md."""

    def episode_neighbours(self, ids: Iterable[str],
                           span: int) -> list[tuple[str, int, Record, bool]]:
        """(given fact id, offset, the neighbour's head: ``FACT_HEAD_FIELDS``, its ends as bare
        ids, as ``get_fact_heads_for`` gives them; whether the neighbour follows a question:
        the fact recorded right before it, in its episode, asks one, ``records.asks``) for
        the facts of the same episode recorded within ``span`` places
        before (negative offset) or after each given fact, by the order the store took them
        in (SQL: the row key); closed ones included. A fact with no episode has none. Search
        lets a fact borrow from its neighbours' scores (a memory's context lives around it,
        and a question's answer follows it: docs/search.md). Rows in no particular order."""

    def episode_members(self, ids: Iterable[str], cap: int,
                        among: Iterable[str] | None = None, *,
                        episodes: Mapping[str, str | None] | None = None
                        ) -> list[tuple[str, str]]:
        """(fact id, episode id) for the facts, closed ones included, of the given facts'
        episodes (those included) that hold at most ``cap`` facts; a bigger episode gives
        none (too large to say where an answer lies), nor does a fact with no episode.
        Rows in no particular order. Search lets a hit's whole episode lend to the
        candidates in it (docs/search.md). ``among``: only these facts' rows (search's
        candidates), read by id rather than by episode, so an episode's other facts are
        never read: its size is counted on the episode index alone; an episode that holds
        fewer than two of them gives none (one alone borrows from no one). ``episodes``: the
        episode (None: none) of facts already read (search's heads), not read again."""

    def stats(self) -> dict[str, Any]:
        """{format, entities, facts: {total, valid, invalidated}, episodes, predicates: {status:
        n}}."""

    # --- purge: the one supported way rows leave the store (docs/forget-and-purge.md) ----------
    def delete_facts(self, ids: Iterable[str]) -> int:
        """Delete facts with their conflict links (either side) and audit verdicts, and their
        full-text entries; unknown ids are ignored. Returns how many facts went."""

    def delete_episodes(self, ids: Iterable[str]) -> int:
        """Delete episodes (and their full-text entries); unknown ids are ignored."""

    def update_episode(self, episode_id: str, *, summary: str | None,
                       evidence: str | None) -> None:
        """Replace an episode's summary and evidence name (a purge rewrote or removed them)."""

    def delete_marks(self, keys: Iterable[str]) -> int:
        """Remove marks; unknown keys are ignored. Returns how many went."""

    def compact(self, tables: Iterable[str] = ("entities", "facts", "episodes")) -> dict[str, Any]:
        """Make deleted rows unrecoverable from the store's files: rebuild the named tables'
        full-text indexes, VACUUM, truncate the WAL. Outside any transaction.
        Returns {vacuumed, wal_truncated}."""

    def truncate_wal(self) -> bool:
        """Fold the WAL into the file and cut it to zero bytes; False if readers kept it."""

    def is_empty(self) -> bool:
        """True when there are no entities, facts or episodes (predicates do not count)."""

    def check_integrity(self, quick: bool = True, limit: int = 20) -> list[str]:
        """The backend's own consistency check (pages, indexes, full-text indexes); at most
        ``limit`` problems, [] when all is well. ``quick`` skips the slower index checks."""

    def close(self) -> None: ...

