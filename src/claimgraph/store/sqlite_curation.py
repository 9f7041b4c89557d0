"""The curator's reads on SQLite, done in SQL so a pass never loads facts it will not change.

These are optional fast paths, not part of the Store protocol: ``curator.reads`` uses them when
a backend has them and otherwise computes the same answers from protocol methods (that is what
the memory store does, and what the tests compare against). Each answer is a SUPERSET of what
the curator's pure logic needs, never a verdict: the logic still decides, on the facts returned.

- ``repeated_claim_facts``: valid facts whose claim key (subject, predicate, object, scope,
  epistemic status, as ``logic.entities.duplicate_groups`` keys them) occurs more than once
  among valid facts. A full pass loads only these for the duplicate collapse.
- ``sweep_pool``: of the subjects with a valid fact of a watched predicate, the valid facts
  that can form a candidate pair or already carry a link: the conflict sweep's pool (pairs
  never cross subjects).
- ``predicate_counts``: per episode, how many facts use each predicate (the mechanical summary).
- the episode and entity-cluster reads, so an incremental pass reads what changed.
- ``known_name_norms``: capture's subject check, for the names one session mentions.
"""

from __future__ import annotations

import json

from claimgraph.logic.model import EPISODE_FIELDS
from claimgraph.store import sqlite_sql as q
from claimgraph.store.records import Record
from claimgraph.store.sqlite_db import SqliteDb

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Iterable

_CLAIM_KEY = ("f.subject_id, f.predicate, f.object_kind, CASE WHEN f.object_kind = 'entity'"
              " THEN f.object_ref_id ELSE f.object_lit END, f.scope, f.epistemic")
#: NULLs group together, as Python's None keys do. NOT INDEXED: one pass over the table and a
#: sort beats walking an index and fetching every row from it (2x at 100k facts).
REPEATED_CLAIM_PKS = ("SELECT json_group_array(f.pk) FROM facts f NOT INDEXED"
                      f" WHERE f.t_invalid IS NULL GROUP BY {_CLAIM_KEY} HAVING count(*) > 1")
FACTS_BY_PK = q.FACT_SELECT + " WHERE f.pk IN (SELECT value FROM json_each(?))" + q.FACT_ORDER
_SUBJECTS_WITH = ("SELECT {a}.subject_id FROM facts {a} WHERE {a}.predicate IN"
                  " (SELECT value FROM json_each(?{n})) AND +{a}.t_invalid IS NULL")
#: The sweep's pool: valid facts of subjects with a watched predicate (?1) that can pair or
#: carry a link: an exclusive predicate's values (?2), every fact of a subject with a decision
#: (?3), and facts already linked. "+": driven by facts_predicate, then by each subject.
SWEEP_POOL = (q.FACT_SELECT + " WHERE +f.t_invalid IS NULL AND f.subject_id IN ("
              + _SUBJECTS_WITH.format(a="w", n=1) + ") AND (+f.predicate IN"
              " (SELECT value FROM json_each(?2)) OR f.subject_id IN ("
              + _SUBJECTS_WITH.format(a="d", n=3) + ") OR f.id IN"
              " (SELECT fact_id FROM conflict_links))" + q.FACT_ORDER)
PREDICATE_COUNTS = ("SELECT episode, predicate, count(*) FROM facts WHERE episode IN"
                    " (SELECT value FROM json_each(?)) GROUP BY episode, predicate")
EPISODES_SINCE = q.EPISODE_SELECT + " WHERE opened_at >= ? ORDER BY opened_at, id"
OPEN_EPISODES = q.EPISODE_SELECT + " WHERE closed_at IS NULL ORDER BY opened_at, id"
DUPLICATE_NAME_KEYS = ("SELECT scope, norm FROM entities GROUP BY scope, norm"
                       " HAVING count(*) > 1")
#: ?1: normalized names as JSON; which of them an entity answers to (name or alias).
KNOWN_NORMS = ("SELECT norm FROM entities WHERE norm IN (SELECT value FROM json_each(?1)) UNION"
               " SELECT norm FROM entity_aliases WHERE norm IN (SELECT value FROM json_each(?1))")
ENTITY_KEYS_AFTER = "SELECT scope, norm FROM entities WHERE pk > ?"
SUBJECTS_AFTER = "SELECT DISTINCT subject_id FROM facts WHERE pk > ?"
#: ?1: [[scope, norm], ...] as JSON; members of each key, for the clusters' report.
ENTITIES_WITH_KEYS = ("SELECT e.scope, e.norm, e.id, e.name FROM json_each(?1) k"
                      " JOIN entities e ON e.norm = json_extract(k.value, '$[1]')"
                      " AND e.scope = json_extract(k.value, '$[0]')")


class SqliteCuration:
    """Mixed into SqliteStore (it provides ``_db`` and ``_facts``)."""

    _db: SqliteDb

    def repeated_claim_facts(self) -> list[Record]:
        pks = [pk for (group,) in self._db.rows(REPEATED_CLAIM_PKS, ()) for pk in json.loads(group)]
        return self._facts((FACTS_BY_PK, [json.dumps(pks)])) if pks else []  # type: ignore[attr-defined]

    def sweep_pool(self, watched: Iterable[str], exclusive: Iterable[str],
                   decisions: Iterable[str]) -> list[Record]:
        lists = [json.dumps(sorted(set(p))) for p in (watched, exclusive, decisions)]
        return self._facts((SWEEP_POOL, lists)) if lists[0] != "[]" else []  # type: ignore[attr-defined]

    def count_valid_facts(self) -> int:
        return int(self._db.value("SELECT count(*) FROM facts WHERE t_invalid IS NULL"))

    def predicate_counts(self, episode_ids: Iterable[str]) -> dict[str, dict[str, int]]:
        counts: dict[str, dict[str, int]] = {}
        for episode, predicate, n in self._db.rows(PREDICATE_COUNTS,
                                                   (json.dumps(sorted(set(episode_ids))),)):
            counts.setdefault(episode, {})[predicate] = n
        return counts

    def count_episodes(self) -> int:
        return int(self._db.value("SELECT count(*) FROM episodes"))

    def episodes_opened_since(self, at: int) -> list[Record]:
        return [dict(zip(EPISODE_FIELDS, r)) for r in self._db.rows(EPISODES_SINCE, (at,))]

    def open_episodes(self) -> list[Record]:
        return [dict(zip(EPISODE_FIELDS, r)) for r in self._db.rows(OPEN_EPISODES)]

    def known_name_norms(self, norms: Iterable[str]) -> set[str]:
        """Capture's subject check: which normalized names some entity answers to."""
        return {r[0] for r in self._db.rows(KNOWN_NORMS, (json.dumps(sorted(set(norms))),))}

    # --- facts inserted since a pass: what no episode names (a teammate's, by sync) --------
    def fact_cursor(self) -> int:
        """Facts are numbered as they are inserted (a sync's replay numbers them all anew)."""
        return int(self._db.value("SELECT coalesce(max(pk), 0) FROM facts"))

    def subjects_of_facts_after(self, cursor: int) -> list[str]:
        return sorted({s for (s,) in self._db.rows(SUBJECTS_AFTER, (cursor,))})

    # --- entity clusters: names in one scope that normalize alike --------------------------
    def entity_cursor(self) -> int:
        """Entities are numbered as they are inserted; a later cursor means newer entities."""
        return int(self._db.value("SELECT coalesce(max(pk), 0) FROM entities"))

    def entity_name_keys_after(self, cursor: int) -> list[tuple[str, str]]:
        return sorted({(s, n) for s, n in self._db.rows(ENTITY_KEYS_AFTER, (cursor,))})

    def duplicate_name_keys(self) -> list[tuple[str, str]]:
        return [(s, n) for s, n in self._db.rows(DUPLICATE_NAME_KEYS)]

    def entities_with_name_keys(self, keys: Iterable[tuple[str, str]]
                                ) -> dict[tuple[str, str], list[Record]]:
        found: dict[tuple[str, str], list[Record]] = {}
        wanted = json.dumps(sorted({tuple(k) for k in keys}))
        for scope, norm, entity_id, name in self._db.rows(ENTITIES_WITH_KEYS, (wanted,)):
            found.setdefault((scope, norm), []).append({"id": entity_id, "name": name,
                                                        "scope": scope})
        return found
