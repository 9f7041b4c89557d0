"""A hand-written batch that walks every branch of the write path, and a dump of what it left.

The batch ingest is optimised (entities resolved against one prefetch, inserts buffered into
one statement per table); it must leave exactly what a plain per-item assert leaves. The
scenario runs on a file store (with its oplog) under a pinned clock and id mint, so two runs
of the same code dump identically, and a run of changed code can be compared with a dump
recorded before the change (``tests/fixtures/write_equivalence.json``; rebuild it with
``python tests/core/write_scenario.py OUT.json`` on the code you trust).
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

from claimgraph.core import Shell
from claimgraph.core import entities as ents
from claimgraph.core import tombstones
from claimgraph.core.ingest import ingest
from claimgraph.core.vocabulary import seed
from claimgraph.core.writes import assert_fact
from claimgraph.logic.timeutil import from_iso
from claimgraph.opening import open_store

FIXTURE = Path(__file__).parent.parent / "fixtures" / "write_equivalence.json"
#: Every table an ingest can touch, with the order that makes a dump stable.
TABLES = {
    "entities": "SELECT pk, id, name, norm, type, scope, aliases FROM entities ORDER BY pk",
    # which ends of a fact each entity has been at (format 8): set at COMMIT, one statement per
    # end for a whole transaction, so a batch and item by item must leave the same bits
    "entity_ends": "SELECT id, ends FROM entities ORDER BY pk",
    "entity_aliases": "SELECT * FROM entity_aliases ORDER BY entity_id, alias",
    "facts": "SELECT * FROM facts ORDER BY pk",
    "conflict_links": "SELECT * FROM conflict_links ORDER BY fact_id, other_id",
    "episodes": "SELECT * FROM episodes ORDER BY id",
    # the write counter counts transactions, which a batch is free to spend differently
    "marks": "SELECT key, value FROM marks WHERE key NOT LIKE 'oplog:%'"
             " AND key != 'store:writes' ORDER BY key",
    "entity_fts": "SELECT rowid, text FROM entity_fts ORDER BY rowid",
    "fact_fts": "SELECT rowid, object_lit FROM fact_fts ORDER BY rowid",
}
#: What differs between two runs of the same code: the machine's writer id, the wall clock.
UNSTABLE_LINE_KEYS = ("writer", "hlc")
TOKEN = "ghp_" + "B" * 36  # the right shape for the redactor, and no real secret


class Clock:
    """Each read one millisecond after the last: the number of reads shows in the dump."""

    def __init__(self) -> None:
        self.now = from_iso("2026-02-01")

    def __call__(self) -> int:
        self.now += 1
        return self.now


def pinned_shell(db: Path) -> Shell:
    counter = itertools.count(1)
    sh = Shell(store=open_store(str(db)), clock=Clock(),
               new_id=lambda prefix: f"{prefix}-{next(counter):05d}")
    seed(sh)
    return sh


def prepare(sh: Shell) -> None:
    """What the store holds before the batch: entities to match exactly, by alias, loosely
    and ambiguously; single-valued facts to supersede; a preference; a purged statement."""
    assert_fact(sh, "AuthService", "depends-on", "postgres")
    ents.add_alias(sh, "AuthService", "auth")
    assert_fact(sh, "payments", "has-version", "1.0")
    assert_fact(sh, "payments", "has-status", "beta")
    assert_fact(sh, "web", "prefers", "React")
    assert_fact(sh, "shared-lib", "depends-on", "numpy", scope="user")
    with sh.store.transaction():
        for name in ("api_gateway", "ApiGateway"):
            sh.store.insert_entity({"id": sh.new_id("e"), "name": name, "type": None,
                                    "scope": "project", "aliases": []})
    buried = assert_fact(sh, "legacy", "depends-on", "cobol")["fact"]
    with sh.store.transaction():
        tombstones.bury_facts(sh.store, [buried], "purge-1", sh.now())


def batch() -> list[dict[str, Any]]:
    """Every kind of item, several times over, with repeats in and across flushes."""
    items: list[dict[str, Any]] = [
        {"subject": "auth-service", "predicate": "depends-on", "object": "Redis"},
        {"subject": "AuthService", "predicate": "depends-on", "object": "postgres"},
        {"subject": "auth", "predicate": "tested-by", "object": "tests/test_auth.py"},
        {"subject": "payments", "predicate": "has-version", "object": "2.0"},
        {"subject": "payments", "predicate": "has-version", "object": "2.0"},
        {"subject": "payments", "predicate": "has-status", "object": "ga", "on_conflict": "flag"},
        {"subject": "web", "predicate": "prefers", "object": "Vue"},
        {"subject": "api-gateway", "predicate": "depends-on", "object": "envoy"},
        {"subject": "  ", "predicate": "depends-on", "object": "x"},
        {"subject": "lonely", "predicate": "depends-on", "object": None},
        {"subject": "lonely", "predicate": "no-such-predicate", "object": "x"},
        {"subject": "new-mod", "predicate": "written-in", "object": "Python"},
        {"subject": "new-mod", "predicate": "written-in", "object": "postgres"},
        {"subject": "Kafka-Client", "predicate": "depends-on", "object": "librdkafka"},
        {"subject": "kafka_client", "predicate": "tested-by", "object": "tests/test_kafka.py"},
        {"subject": "svc", "predicate": "depends-on", "object": "redis"},
        {"subject": "svc", "subject_type": "service", "predicate": "part-of", "object": "platform"},
        {"subject": "svc", "subject_type": "library", "predicate": "part-of", "object": "platform"},
        {"subject": "shared-lib", "predicate": "depends-on", "object": "numpy", "scope": "user"},
        {"subject": "shared-lib", "predicate": "depends-on", "object": "numpy"},
        {"subject": "legacy", "predicate": "depends-on", "object": "cobol"},
        {"subject": "deploy", "predicate": "failure-mode",
         "object": f"push fails with GH_TOKEN={TOKEN}"},
        {"subject": f"token {TOKEN}", "predicate": "tested-by", "object": "ci"},
        {"subject": "mod-a", "predicate": "x/role", "object": "router", "confidence": 0.9,
         "epistemic": "observation", "source-type": "human", "evidence": ["notes.md:3"]},
        {"subject": "mod-a", "predicate": "has-version", "object": "3", "valid_from": 1_000,
         "valid_until": 2_000},
        {"subject": "mod-a", "predicate": "prefers", "object": "tabs", "class": "preference"},
        {"subject": "mod-a", "predicate": "prefers", "object": "spaces"},
        {"subject": "mod-b", "predicate": "depends-on", "object": "mod-a", "object_type": "module"},
        {"subject": "mod-b", "predicate": "motivated-by", "object": "mod-a"},
        {"subject": "mod-b", "predicate": "motivated-by", "object": "speed"},
        {"subject": "web", "predicate": "prefers", "object": "Svelte", "on_conflict": "ignore"},
        {"subject": "payments", "predicate": "has-version", "object": "2.1",
         "on_conflict": "supersede"},
    ]
    for n in range(40):  # repeats: reinforcements among plain inserts, flushed several times
        items.append({"subject": f"module_{n % 7}", "predicate": "depends-on",
                      "object": f"lib-{n % 5}"})
        items.append({"subject": f"module_{n % 7}", "predicate": "has-version",
                      "object": f"{n % 3}"})
        items.append({"subject": f"Module-{n % 4}", "predicate": "failure-mode",
                      "object": f"times out at step {n % 6}"})
    return items


def relearning_batch() -> list[dict[str, Any]]:
    """New entities around writes the batch does not buffer: a predicate registered on first
    use, and a purged statement taken back (``relearn``)."""
    return [
        {"subject": "fresh-1", "predicate": "depends-on", "object": "fresh-lib"},
        {"subject": "fresh-2", "predicate": "x/brand-new", "object": "value"},
        {"subject": "fresh-3", "predicate": "depends-on", "object": "fresh-lib-2"},
        {"subject": "legacy", "predicate": "depends-on", "object": "cobol"},
        {"subject": "fresh-4", "predicate": "x/brand-new", "object": "value"},
    ]


def run(db: Path) -> dict[str, Any]:
    """Prepare a store at ``db``, ingest the batches, and dump what is there."""
    sh = pinned_shell(db)
    try:
        prepare(sh)
        report = [ingest(sh, batch()), ingest(sh, relearning_batch(), relearn=True)]
        texts = sh.store.oplog.path.read_text(encoding="utf-8").splitlines()
    finally:
        sh.store.close()
    lines = [json.loads(text) for text in texts]
    return {"report": json.loads(json.dumps(report)), "tables": dump_tables(db),
            "oplog": [{k: v for k, v in line.items() if k not in UNSTABLE_LINE_KEYS}
                      for line in lines],
            "oplog_canonical": all(text == _canonical(line) for text, line in zip(texts, lines))}


def _canonical(line: dict[str, Any]) -> str:
    """How every log line must read: keys sorted, compact, unescaped."""
    return json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def dump_tables(db: Path) -> dict[str, list[list[Any]]]:
    con = sqlite3.connect(db)
    try:
        return {table: [list(row) for row in con.execute(sql)] for table, sql in TABLES.items()}
    finally:
        con.close()


if __name__ == "__main__":
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        dump = run(Path(tmp) / "claims.db")
        dump.pop("oplog_canonical")
    Path(sys.argv[1]).write_text(json.dumps(dump, indent=1, sort_keys=True) + "\n",
                                 encoding="utf-8")
