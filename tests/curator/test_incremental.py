"""Incremental consolidation gives what a full pass gives, and the SQL reads answer as the
protocol-only fallback does (the memory store, any other backend)."""

from __future__ import annotations

import itertools
import time

import pytest

from claimgraph.core import Shell, entities
from claimgraph.core.entities import ENTITY_CLUSTERS_MARK
from claimgraph.core.ingest import ingest
from claimgraph.core.vocabulary import seed
from claimgraph.curator import reads
from claimgraph.curator.consolidate import consolidate
from claimgraph.curator.run import INTEGRITY_EVERY_MS, INTEGRITY_MARK, _integrity_due
from claimgraph.curator.scope import WATERMARK
from claimgraph.curator.stage_tools import Fence, StageTools
from claimgraph.logic import entities as E
from claimgraph.logic.conflicts import conflict_candidates
from claimgraph.opening import open_store

MINUTE = 60_000
START = 1_800_000_000_000


def _shell(path, clock):
    counter = itertools.count()
    sh = Shell(open_store(path), clock=lambda: clock[0],
               new_id=lambda prefix: f"{prefix}-{next(counter):06d}")
    seed(sh)
    return sh


def _pass(sh, path, full: bool):
    if full:  # forget what earlier passes saw: this pass must find everything itself
        with sh.store.transaction():
            sh.store.set_mark(WATERMARK, None)
            sh.store.set_mark(ENTITY_CLUSTERS_MARK, None)
    return consolidate(StageTools(sh, Fence(path, None), "cur-test", False))["counts"]


def _state(sh):
    facts = sorted((f["id"], f["t_invalid"], f["invalidation_kind"], f["successor"],
                    tuple(f["conflicts"])) for f in sh.store.all_facts())
    episodes = sorted((e["id"], e["closed_at"], e["summary"]) for e in sh.store.list_episodes())
    return facts, episodes


def _insert_entity(sh, entity_id, name, scope="project"):
    with sh.store.transaction():
        sh.store.insert_entity({"id": entity_id, "name": name, "type": None, "scope": scope,
                                "aliases": []})


STEPS = [
    lambda sh: ingest(sh, [{"subject": "api", "predicate": "depends-on", "object": "redis"},
                           {"subject": "api", "predicate": "prefers", "object": "tabs"},
                           {"subject": "web", "predicate": "depends-on", "object": "kafka"},
                           {"subject": "AuthService", "predicate": "written-in", "object": "go"}]),
    lambda sh: ingest(sh, [{"subject": "api", "predicate": "prefers", "object": "spaces"},
                           {"subject": "web", "predicate": "decided-against", "object": "kafka"},
                           {"subject": "cli", "predicate": "depends-on", "object": "click"}]),
    lambda sh: (_insert_entity(sh, "e-auth-2", "auth-service"),  # a new cluster, with a fact
                ingest(sh, [{"subject": "auth-service", "predicate": "written-in",
                             "object": "go"}])),
    lambda sh: _insert_entity(sh, "e-web-2", "Web"),             # another one
    lambda sh: entities.rename(sh, "redis", "KAFKA", "project"),  # a rename makes one
    lambda sh: entities.merge(sh, "auth-service", "AuthService", "project"),  # a merge ends one
    lambda sh: ingest(sh, [{"subject": "db", "predicate": "prefers", "object": "postgres"},
                           {"subject": "db", "predicate": "prefers", "object": "sqlite"}]),
]


def test_incremental_passes_leave_the_store_as_full_passes_do(tmp_path):
    clock = [START]
    inc, full = _shell(tmp_path / "inc.db", clock), _shell(tmp_path / "full.db", clock)
    try:
        for step in STEPS:
            for sh in (inc, full):
                step(sh)
            clock[0] += 2 * MINUTE
            a, b = _pass(inc, tmp_path / "inc.db", False), _pass(full, tmp_path / "full.db", True)
            assert b["mode"] == "full"
            assert a["entity_clusters"] == b["entity_clusters"]
            assert _state(inc) == _state(full)
            clock[0] += 11 * MINUTE  # past the look-back window: the next pass is incremental
        assert a["mode"] == "incremental" and b["entity_clusters"] == 2
        assert any(f[4] for f in _state(inc)[0])  # the sweep linked something
        assert any(f[1] for f in _state(inc)[0])  # and the merge left a duplicate behind
    finally:
        inc.store.close()
        full.store.close()


class ProtocolOnly:
    """A store without the SQLite fast paths: ``curator.reads`` must fall back."""

    def __init__(self, store):
        self._store = store

    def __getattr__(self, name):
        if name in {"repeated_claim_facts", "sweep_pool", "count_valid_facts",
                    "predicate_counts", "count_episodes", "episodes_opened_since",
                    "open_episodes", "entity_cursor", "duplicate_name_keys",
                    "known_name_norms"}:
            raise AttributeError(name)
        return getattr(self._store, name)


@pytest.fixture
def rich(tmp_path):
    """Duplicates (valid, invalidated, future-dated), conflicts, links and name clusters."""
    clock = [START]
    sh = _shell(tmp_path / "rich.db", clock)
    for step in STEPS[:4]:
        step(sh)
    first = sh.store.select_facts(predicates=["core/depends-on"])[0]
    with sh.store.transaction():
        for i, extra in enumerate(({}, {"epistemic": "hypothesis"}, {"t_valid": START * 2},
                                   {"t_invalid": START - 1})):
            sh.store.insert_fact({**first, "id": f"f-copy-{i}", "conflicts": [],
                                  "recorded_at": first["recorded_at"] + i + 1, **extra})
        sh.store.insert_fact({**first, "id": "f-copy-user", "scope": "user", "conflicts": []})
    _insert_entity(sh, "e-other-scope", "auth_service", scope="user")
    yield sh
    sh.store.close()


def test_the_sql_reads_answer_as_the_protocol_fallback(rich):
    fast, slow = rich, Shell(ProtocolOnly(rich.store), clock=rich.clock)
    now = START + MINUTE
    assert E.collapse_plan(reads.repeated_claim_facts(fast), now) == E.collapse_plan(
        reads.repeated_claim_facts(slow), now) != []
    classes = reads.sweep_predicates(rich.predicates())
    pair_ids = [sorted((p["fact"]["id"], p["candidate"]["id"], p["reason"]) for p in
                       conflict_candidates(reads.sweep_pool(sh, classes), rich.predicates(), now))
                for sh in (fast, slow)]
    assert pair_ids[0] == pair_ids[1] != []
    assert reads.count_valid_facts(fast) == reads.count_valid_facts(slow)
    ids = [e["id"] for e in rich.store.list_episodes()]
    assert reads.predicate_counts(fast, ids) == reads.predicate_counts(slow, ids) != {}
    assert reads.open_episodes(fast) == reads.open_episodes(slow)
    assert reads.episodes_opened_since(fast, START) == reads.episodes_opened_since(slow, START)
    assert reads.episode_count(fast) == reads.episode_count(slow)

    def clusters(sh, keys=None):
        return [(c["scope"], c["normalized"], [e["id"] for e in c["entities"]])
                for c in reads.entity_clusters(sh, keys)]
    assert clusters(fast) == clusters(slow) and len(clusters(slow)) == 2
    assert clusters(fast, [("project", "authservice")]) == clusters(slow)[:1]


def test_capture_asks_only_for_the_subjects_it_mentions(rich):
    from claimgraph.capture.run import known_subject_norms
    said = [{"subject": "Auth Service"}, {"subject": "nobody-here"}, {"subject": None}]
    assert known_subject_norms(rich, said) == {"authservice"}
    assert known_subject_norms(Shell(ProtocolOnly(rich.store)), said) == {"authservice"}


def test_the_integrity_check_runs_when_the_last_clean_one_is_a_day_old(tmp_path):
    store = open_store(tmp_path / "c.db")
    try:
        assert _integrity_due(store)
        now = time.time_ns() // 1_000_000
        with store.transaction():
            store.set_mark(INTEGRITY_MARK, now)
        assert not _integrity_due(store)
        with store.transaction():
            store.set_mark(INTEGRITY_MARK, now - INTEGRITY_EVERY_MS)
        assert _integrity_due(store)
    finally:
        store.close()
