"""The log itself: what a write records, crash safety, and the reconcile bookkeeping."""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claimgraph.core import Shell
from claimgraph.core import entities as ents
from claimgraph.core import writes
from claimgraph.core.vocabulary import seed
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import oplog as L
from claimgraph.opening import open_store
from claimgraph.oplog import files as F
from claimgraph.oplog.own_log import OUTBOX, OUTBOX_HEAD

from .test_hostile_sync import trust_each_other
from .oplog_helpers import Replica, deliver


def lines(path: Path) -> list[dict]:
    texts = path.read_text(encoding="utf-8").removesuffix("\n").split("\n")
    return [json.loads(text) for text in texts]


def own_log(db: Path) -> Path:
    logs = [p for p in F.log_files(F.oplog_dir(db))]
    assert len(logs) == 1
    return logs[0]


def test_every_committed_write_is_one_dense_line_and_a_rolled_back_one_none(tmp_path):
    db = tmp_path / "claims.db"
    store = open_store(db)
    sh = Shell(store)
    seed(sh)
    writes.assert_fact(sh, "api", "prefers", "REST", scope="p")
    try:
        with store.transaction():
            writes.assert_fact(sh, "api", "prefers", "SOAP", scope="p")
            raise RuntimeError("abandon")
    except RuntimeError:
        pass
    ents.rename(sh, "api", "gateway", "p")
    store.close()
    recorded = lines(own_log(db))
    assert [line["seq"] for line in recorded] == list(range(1, len(recorded) + 1))
    assert all(line["format"] == L.FORMAT and line["writer"] == recorded[0]["writer"]
               for line in recorded)
    verbs = [line["t"] for line in recorded if line["t"] != "register-predicate"]
    assert verbs == ["ensure-entity", "insert-fact", "update-entity"]
    assert "SOAP" not in own_log(db).read_text()
    hlcs = [line["hlc"] for line in recorded]
    assert hlcs == sorted(hlcs)


def test_the_writer_id_persists_and_the_environment_only_seeds_it(tmp_path, capsys):
    directory = tmp_path / "claims.db.oplog"
    assert F.writer_id(directory, {"CLAIMGRAPH_WRITER": "laptop-1"}) == "laptop-1"
    assert F.writer_id(directory, {"CLAIMGRAPH_WRITER": "desktop"}) == "laptop-1"
    assert "CLAIMGRAPH_WRITER=desktop ignored" in capsys.readouterr().err
    assert F.writer_id(tmp_path / "other", {}).startswith("w-")


def test_a_process_killed_after_commit_has_its_lines_appended_by_the_next_write(tmp_path):
    db = tmp_path / "claims.db"
    script = ("import os, sys; from claimgraph.opening import open_store;"
              "from claimgraph.oplog import own_log as O;"
              "from claimgraph.core import Shell; from claimgraph.core import writes;"
              "from claimgraph.core.vocabulary import seed;"
              "sh = Shell(open_store(sys.argv[1])); seed(sh);"
              "O.OwnLog.commit_staged = lambda self: os._exit(9);"
              "tx = sh.store.transaction(); tx.__enter__();"
              "writes.assert_fact(sh, 'api', 'prefers', 'REST', scope='p');"
              "tx.__exit__(None, None, None)")
    died = subprocess.run([sys.executable, "-c", script, str(db)], capture_output=True)
    assert died.returncode == 9
    assert "REST" not in own_log(db).read_text()  # committed, never appended
    store = open_store(db)
    assert store.inner.get_mark(OUTBOX_HEAD)["last"] >= 2
    writes.assert_fact(Shell(store), "api", "prefers", "gRPC", scope="p")
    store.close()
    text = own_log(db).read_text()
    assert "REST" in text and "gRPC" in text
    seqs = [line["seq"] for line in lines(own_log(db))]
    assert seqs == list(range(1, len(seqs) + 1))
    assert OUTBOX  # the outbox itself holds the last transaction's lines


def test_a_store_with_data_before_its_log_starts_with_a_baseline(tmp_path):
    db = tmp_path / "claims.db"
    raw = open_store(db).inner
    sh = Shell(raw)
    seed(sh)
    writes.assert_fact(sh, "api", "prefers", "REST", scope="p")
    raw.close()
    store = open_store(db)
    writes.assert_fact(Shell(store), "api", "depends-on", "kuzu", scope="p")
    store.close()
    replica = Replica(tmp_path, "replica")
    deliver(replica, own_log(db))
    replica.sync()
    assert "REST" in replica.dump() and "kuzu" in replica.dump()


def test_reconcile_is_idempotent_and_reports_what_it_applied(tmp_path):
    writer, replica = Replica(tmp_path, "w1"), Replica(tmp_path, "r1")
    seed(writer.sh)
    writes.assert_fact(writer.sh, "api", "prefers", "REST", scope="p")
    deliver(replica, writer.log_dir() / "w1.jsonl")
    first = replica.sync()
    assert first["effects"]["applied"] > 0 and first["effects"]["deferred"] == 0
    assert first["writers"] == ["w1"]
    before = replica.dump()
    again = replica.sync()
    assert again["effects"]["total"] == 0 and replica.dump() == before
    state = json.loads((replica.log_dir() / "applied.json").read_text())
    assert state["high-water"]["w1"] == len(lines(writer.log_dir() / "w1.jsonl"))


def test_a_hole_in_a_log_holds_the_mark_and_later_lines_wait_beyond_it(tmp_path):
    writer, replica = Replica(tmp_path, "w1"), Replica(tmp_path, "r1")
    seed(writer.sh)
    for value in ("REST", "SOAP", "gRPC"):
        writes.assert_fact(writer.sh, "api", "prefers", value, scope="p", on_conflict="flag")
    recorded = (writer.log_dir() / "w1.jsonl").read_text().removesuffix("\n").split("\n")
    holed = [text for text in recorded if json.loads(text)["seq"] != 3]
    replica.log_dir().mkdir(parents=True, exist_ok=True)
    (replica.log_dir() / "w1.jsonl").write_text("\n".join(holed) + "\n")
    report = replica.sync()
    assert {"warning": "seq-gap", "writer": "w1", "from": 3, "to": 3} in report["warnings"]
    state = json.loads((replica.log_dir() / "applied.json").read_text())
    assert state["high-water"]["w1"] == 2 and state["applied-beyond"]["w1"]


def test_a_line_whose_prerequisite_never_comes_is_stuck_then_abandoned(tmp_path):
    writer, replica = Replica(tmp_path, "w1"), Replica(tmp_path, "r1")
    seed(writer.sh)
    writes.assert_fact(writer.sh, "api", "prefers", "REST", scope="p")
    recorded = (writer.log_dir() / "w1.jsonl").read_text().removesuffix("\n").split("\n")
    kept = [t for t in recorded if json.loads(t)["t"] != "ensure-entity"]
    replica.log_dir().mkdir(parents=True, exist_ok=True)
    (replica.log_dir() / "w1.jsonl").write_text("\n".join(kept) + "\n")
    reports = [replica.sync() for _ in range(3)]
    assert reports[0]["effects"]["deferred"] == 1
    assert reports[-1]["stuck"] and "abandon-deferred" in reports[-1]["hint"]
    done = replica.sync(abandon_deferred=True)
    assert done["abandoned"] == 1 and not done["stuck"]


def test_a_future_format_line_is_held_and_a_newer_state_file_refused(tmp_path):
    replica = Replica(tmp_path, "r1")
    replica.log_dir().mkdir(parents=True, exist_ok=True)
    future = L.encode({"t": "teleport"}, "w9", 1, 5)
    (replica.log_dir() / "w9.jsonl").write_text(future.replace('"format":1', '"format":9') + "\n")
    assert replica.sync()["held"] == 1
    (replica.log_dir() / "applied.json").write_text(json.dumps({"format": 99}))
    replica.store.inner.delete_marks(["oplog:state"])
    try:
        replica.sync()
    except Exception as error:  # noqa: BLE001 - the type is what the test reads
        assert getattr(error, "type", None) == "future-format"
    else:
        raise AssertionError("a newer applied.json must be refused")


def test_a_bad_envelope_and_a_garbled_line_are_warned_about_and_skipped(tmp_path):
    replica = Replica(tmp_path, "r1")
    replica.log_dir().mkdir(parents=True, exist_ok=True)
    (replica.log_dir() / "w9.jsonl").write_text(
        '{"t":"revive","writer":"w9","hlc":1,"format":1}\nnot json\n{"t":"rev')
    kinds = sorted(w["warning"] for w in replica.sync()["warnings"])
    assert kinds == ["bad-envelope", "unreadable"]


def test_the_cli_syncs_two_stores_through_a_shared_directory(tmp_path):
    shared = tmp_path / "shared"
    env = {**os.environ}
    one, two = str(tmp_path / "one" / "claims.db"), str(tmp_path / "two" / "claims.db")

    def cli(db: str, *argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "claimgraph", "--db", db, *argv],
                              capture_output=True, text=True, env=env, timeout=60)
    assert cli(one, "assert", "api", "prefers", "REST", "--scope", "p").returncode == 0
    assert cli(two, "assert", "db", "depends-on", "postgres", "--scope", "p").returncode == 0
    trust_each_other(Path(one), Path(two))
    for db in (one, two, one):
        done = cli(db, "sync", "--dir", str(shared), "--project", "p", "--json")
        assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["status"] == "reconciled" and report["exchange"]["logs_taken"] == 1
    # the same graph, except that each store names the other writer as the source of its
    # facts: a teammate's assertion is never this user's own (docs/sync.md, "Trust")
    dumps = [cli(db, "dump").stdout for db in (one, two)]
    assert all('"source_type":"sync:w-' in d for d in dumps)
    same = [re.sub(r'"source_type":"sync:[^"]+"', '"source_type":"user-assertion"', d)
            for d in dumps]
    assert same[0] == same[1]
    assert len(list(shared.glob("*.jsonl"))) == 2


def test_a_purge_reaches_every_replica_and_leaves_no_word_in_any_log(tmp_path):
    secret = "hunter2-acme-7412"  # a leaked value redaction cannot recognise
    env = {**os.environ}
    one, two = str(tmp_path / "one" / "claims.db"), str(tmp_path / "two" / "claims.db")
    shared = str(tmp_path / "shared")

    def cli(db: str, *argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "claimgraph", "--db", db, *argv],
                              capture_output=True, text=True, env=env, timeout=60)
    assert cli(one, "assert", "api", "prefers", "REST", "--scope", "p").returncode == 0
    assert cli(one, "assert", "ci", "prefers", f"login {secret}", "--scope", "p").returncode == 0
    trust_each_other(Path(one), Path(two))
    for db in (one, two):
        assert cli(db, "sync", "--dir", shared, "--project", "p").returncode == 0
    assert secret in cli(two, "dump").stdout
    purged = cli(one, "purge", "--match", secret, "--yes")
    assert purged.returncode == 0, purged.stderr
    for db in (one, two, one):
        assert cli(db, "sync", "--dir", shared, "--project", "p").returncode == 0
    assert secret not in cli(two, "dump").stdout
    assert cli(one, "dump").stdout.count("\n") > 20
    for log in [*Path(shared).glob("*.jsonl"), *(tmp_path / "one").glob("claims.db.oplog/*.jsonl")]:
        assert secret not in log.read_text(), log
        seqs = [line["seq"] for line in lines(log)]
        assert seqs == list(range(1, len(seqs) + 1))


def test_a_fact_line_reads_as_canonical_text_whatever_order_its_keys_came_in():
    """Keys sorted at every depth (a nested mapping too), compact, unescaped: the same effect
    always reads the same, however the effect was built."""
    from claimgraph.oplog.baseline import fact_effect
    fact = {"id": "f-1", "subject": {"id": "e-1", "name": "api"}, "predicate": "core/prefers",
            "object_kind": "literal", "object_ref": None, "object_lit": "naïve “quotes” \\ \n",
            "t_valid": 1, "t_invalid": None, "recorded_at": 1, "last_reinforced_at": 1,
            "confidence": 0.5, "epistemic": "preference", "scope": "project",
            "source_type": "human", "episode": None, "conflicts": ["f-3", "f-2"],
            "evidence": ["notes.md:1", "é"]}
    effect = {"t": "insert-fact", "fact": fact_effect(fact)}
    unordered = {"t": "insert-fact", "fact": dict(reversed(list(effect["fact"].items())))}
    nested = {"t": "insert-fact", "fact": {**effect["fact"], "evidence": [{"b": 1, "a": 2}]}}
    for each in (effect, unordered, nested):
        text = L.encode(each, "w-1", 7, 99)
        assert text == L.canonical_text(json.loads(text))
        assert json.loads(text) == {**each, "writer": "w-1", "seq": 7, "hlc": 99, "format": 1}


def test_seq_ranges_add_remove_and_hold() -> None:
    from claimgraph.logic import oplog as L
    ranges: list[list[int]] = []
    for seq in (5, 3, 4, 9, 1):
        ranges = L.add_to_ranges(ranges, seq)
    assert ranges == [[1, 1], [3, 5], [9, 9]]
    assert L.in_ranges(ranges, 4) and not L.in_ranges(ranges, 2) and not L.in_ranges("x", 1)
    assert L.remove_from_ranges(ranges, 4) == [[1, 1], [3, 3], [5, 5], [9, 9]]
    assert L.remove_from_ranges([[1, 1]], 1) == []


def test_a_sync_within_one_file_time_tick_still_raises_the_clock_of_our_next_line(tmp_path):
    """Two syncs can rewrite applied.json within one tick of the file clock; the second's
    higher peer clock must still floor our next line, or it sorts before what it follows."""
    from claimgraph.oplog.own_log import OwnLog
    from claimgraph.store.memory import MemoryStore

    directory, store = tmp_path / "claims.db.oplog", MemoryStore()
    log = OwnLog(directory, "w1", clock=lambda: 1_000)
    state_file = directory / F.STATE_FILE

    def write_one() -> int:
        log.stage(store, [{"t": "set-mark", "key": "k", "value": 1}])
        log.commit_staged()
        last = log.path.read_text(encoding="utf-8").removesuffix("\n").split("\n")[-1]
        return L.parse(last)["hlc"]

    F.write_state(directory, {**F.fresh_state(), "clock": 5_000})
    assert write_one() == 5_001
    first = state_file.stat()
    F.write_state(directory, {**F.fresh_state(), "clock": 9_000})  # the same size
    os.utime(state_file, ns=(first.st_atime_ns, first.st_mtime_ns))  # and the same tick
    assert state_file.stat().st_size == first.st_size
    assert write_one() == 9_001


HOLD_LOCK = """
import sys
from filelock import FileLock
lock = FileLock(sys.argv[1])
lock.acquire()
print("held", flush=True)
sys.stdin.read()
"""


def test_a_log_another_process_keeps_locked_refuses_the_write_instead_of_losing_its_line(
        tmp_path, monkeypatch):
    """Data committed without its log line would be missing from every replica for good: the
    write is refused (store-busy, a transient error capture retries) and nothing is stored."""
    from claimgraph.oplog import own_log as own_log_module

    monkeypatch.setattr(own_log_module, "LOCK_TIMEOUT_S", 0.2)
    db = tmp_path / "claims.db"
    store = open_store(db)
    sh = Shell(store)
    seed(sh)
    writes.assert_fact(sh, "api", "prefers", "REST", scope="p")
    log_file = own_log(db)
    before_log, before_facts = log_file.read_text(), len(store.all_facts())
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, f"{log_file}.lock"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(ClaimgraphError) as refused:
            writes.assert_fact(sh, "api", "prefers", "SOAP", scope="p")
        assert refused.value.type == "store-busy" and "stayed locked" in refused.value.message
        assert len(store.all_facts()) == before_facts and log_file.read_text() == before_log
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    writes.assert_fact(sh, "api", "prefers", "SOAP", scope="p")
    assert "SOAP" in log_file.read_text() and len(store.all_facts()) == before_facts + 1
    store.close()


def test_a_fact_line_is_the_canonical_text_for_any_fact():
    """The unsorted fast path (``logic.oplog._fact_line``) writes exactly what sorting would,
    whatever text, numbers and lists a fact carries."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from claimgraph.oplog.baseline import fact_effect
    text = st.text(max_size=30)
    number = st.one_of(st.integers(-2**63, 2**63), st.floats(allow_nan=False,
                                                             allow_infinity=False))

    @settings(max_examples=200)
    @given(lit=st.one_of(st.none(), text), conf=st.floats(0, 1), t=number,
           evidence=st.lists(text, max_size=3), conflicts=st.lists(text, max_size=3),
           reason=st.one_of(st.none(), text), seq=st.integers(1, 10**9))
    def check(lit, conf, t, evidence, conflicts, reason, seq):
        fact = {"id": "f-1", "subject": {"id": "e-1"}, "predicate": "core/uses",
                "object_kind": "literal", "object_ref": None, "object_lit": lit, "t_valid": t,
                "recorded_at": 1, "confidence": conf, "epistemic": "observation",
                "scope": "project", "source_type": "human", "conflicts": conflicts,
                "evidence": evidence, "invalidation_reason": reason}
        effect = {"t": "insert-fact", "fact": fact_effect(fact)}
        line = L.encode(effect, "w-1", seq, seq + 5)
        assert L._fact_line(effect["fact"], "w-1", seq, seq + 5) == line  # the fast path ran
        assert line == L.canonical_text({**effect, "writer": "w-1", "seq": seq, "hlc": seq + 5,
                                         "format": L.FORMAT})
    check()


def test_an_entity_line_is_the_canonical_text_for_any_entity():
    """The unsorted fast path (``logic.oplog._entity_line``) writes exactly what sorting would,
    whatever text its name, type and aliases hold; any other shape is sorted as before."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    text = st.text(max_size=30)

    @settings(max_examples=300)
    @given(name=text, type_=st.one_of(st.none(), text), scope=text,
           aliases=st.lists(text, max_size=4), writer=text, seq=st.integers(1, 10**9))
    def check(name, type_, scope, aliases, writer, seq):
        entity = {"record": "entity", "id": "e-1", "name": name, "type": type_, "scope": scope,
                  "aliases": aliases}
        effect = {"t": "ensure-entity", "entity": entity}
        line = L.encode(effect, writer, seq, seq + 5)
        assert L._entity_line(entity, writer, seq, seq + 5) == line  # the fast path ran
        assert line == L.canonical_text({**effect, "writer": writer, "seq": seq,
                                         "hlc": seq + 5, "format": L.FORMAT})
    check()
    odd = [{"record": "entity", "id": "e-1", "name": "n", "type": None, "scope": "p"},
           {"record": "entity", "id": "e-1", "name": "n", "type": 3, "scope": "p",
            "aliases": []},
           {"record": "entity", "id": "e-1", "name": "n", "type": None, "scope": "p",
            "aliases": ["a", None]},
           {"record": "entity", "id": "e-1", "name": "n", "type": None, "scope": "p",
            "aliases": [], "extra": 1}]
    for entity in odd:
        effect = {"t": "ensure-entity", "entity": entity}
        assert L._entity_line(entity, "w", 1, 2) is None
        assert L.encode(effect, "w", 1, 2) == L.canonical_text(
            {**effect, "writer": "w", "seq": 1, "hlc": 2, "format": L.FORMAT})
