"""The outbox keeps a batch's facts as rows and derives their lines at append: the log a
process writes is the same text whether it lived or was killed between COMMIT and the append
(the next process derives the lines from the outbox), and an older claimgraph's outbox of
whole lines is still appended."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claimgraph.logic import oplog as L
from claimgraph.opening import open_store
from claimgraph.oplog import files as F
from claimgraph.oplog.baseline import fact_effect, fact_row, insert_effect
from claimgraph.oplog.own_log import OUTBOX, OUTBOX_HEAD, OwnLog
from claimgraph.store.memory import MemoryStore

#: One process's writes, ids and clocks pinned so two runs write the same log: a batch with
#: entities, facts, reinforcements of facts the batch itself inserted, a supersession (an
#: invalidate line between rows), text that JSON escapes. argv:
#: the store, and "die" to end the process between the big batch's COMMIT and its append.
WRITE_BATCH = r"""
import itertools, os, sys
from claimgraph.core import Shell
from claimgraph.core.ingest import ingest
from claimgraph.core.vocabulary import seed
from claimgraph.opening import open_store
from claimgraph.oplog import own_log as O

ticks, ids = itertools.count(1_700_000_000_000, 7), itertools.count(1)
clock = lambda: next(ticks)
store = open_store(sys.argv[1])
store.oplog.clock = clock
sh = Shell(store, clock=clock, new_id=lambda prefix: f"{prefix}-{next(ids):06d}")
seed(sh)
items = [{"subject": f"mod{k % 40}", "predicate": "depends-on", "object": f"lib{k}"}
         for k in range(300)]
items += items[:30]  # said again: reinforced within the batch
items += [{"subject": f"mod{k}", "predicate": "has-version", "object": f"1.{j}",
           "valid_from": 1_600_000_000_000 + j} for k in range(5) for j in range(2)]
items += [{"subject": "api", "predicate": "prefers", "object": 'say "é"\n\t\u2028 \\ end',
           "evidence": ["a\"b", "ü"], "confidence": 0.55}]
if sys.argv[2] == "die":
    O.OwnLog.commit_staged = lambda self: os._exit(9)
if sys.argv[2] == "tear":  # killed in the middle of the append's write
    def torn(self, lines):
        with open(self.path, "a", encoding="utf-8") as out:
            out.write("\n".join(lines)[:len(lines[0]) // 2])
        os._exit(9)
    O.OwnLog._append = torn
ingest(sh, items)
store.close()
"""

#: The next process: one write of its own (ids and clock pinned), which appends what the
#: outbox holds first.
NEXT_WRITE = r"""
import itertools, sys
from claimgraph.core import Shell, writes
from claimgraph.opening import open_store

ticks, ids = itertools.count(1_800_000_000_000, 7), itertools.count(1)
clock = lambda: next(ticks)
store = open_store(sys.argv[1])
store.oplog.clock = clock
sh = Shell(store, clock=clock, new_id=lambda prefix: f"{prefix}-next-{next(ids):06d}")
writes.assert_fact(sh, "api", "prefers", "gRPC", scope="project")
store.close()
"""


def run(script: str, *args: str) -> int:
    env = {**os.environ, "CLAIMGRAPH_WRITER": "w-pinned"}
    done = subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode in (0, 9), done.stderr
    return done.returncode


def log_text(db: Path) -> str:
    (log,) = F.log_files(F.oplog_dir(db))
    return log.read_text(encoding="utf-8")


def test_a_process_killed_before_its_append_leaves_the_log_a_live_one_writes(tmp_path):
    lived, died = tmp_path / "lived" / "claims.db", tmp_path / "died" / "claims.db"
    for db in (lived, died):
        db.parent.mkdir(mode=0o700)
    assert run(WRITE_BATCH, str(lived), "live") == 0
    assert run(WRITE_BATCH, str(died), "die") == 9
    before = log_text(died)  # the vocabulary's lines: the batch committed, never appended
    assert "mod0" not in before and before == log_text(lived)[:len(before)]
    store = open_store(died)
    box = store.inner.get_mark(OUTBOX)
    assert box["writer"] == "w-pinned" and box["first"] == before.count("\n") + 1
    rows = [item for item in box["effects"] if isinstance(item, list)]
    assert len(rows) == 300 + 10 + 1  # one row per inserted fact, not its line
    assert store.inner.get_mark(OUTBOX_HEAD)["last"] == box["first"] + len(box["effects"]) - 1
    store.close()
    assert run(NEXT_WRITE, str(lived)) == run(NEXT_WRITE, str(died)) == 0
    recovered = log_text(died)
    assert recovered == log_text(lived)
    verbs = [json.loads(line)["t"] for line in recovered.split("\n")[:-1]]
    assert {"insert-fact", "reinforce", "invalidate", "ensure-entity"} <= set(verbs)
    seqs = [json.loads(line)["seq"] for line in recovered.split("\n")[:-1]]
    assert seqs == list(range(1, len(seqs) + 1))


def test_a_process_killed_in_the_middle_of_its_append_loses_no_line(tmp_path):
    """The next process appends the outbox's lines after the torn fragment, on lines of their
    own: every seq is there once, whole, and the fragment is a garbled line readers skip."""
    lived, torn = tmp_path / "lived" / "claims.db", tmp_path / "torn" / "claims.db"
    for db in (lived, torn):
        db.parent.mkdir(mode=0o700)
    assert run(WRITE_BATCH, str(lived), "live") == 0
    assert run(WRITE_BATCH, str(torn), "tear") == 9
    assert not log_text(torn).endswith("\n")
    assert run(NEXT_WRITE, str(lived)) == run(NEXT_WRITE, str(torn)) == 0
    texts = log_text(torn).split("\n")[:-1]
    whole = [text for text in texts if L.parse(text) is not None]
    assert len(texts) == len(whole) + 1  # the fragment, alone on its line
    assert "\n".join(whole) + "\n" == log_text(lived)


def test_an_outbox_of_whole_lines_an_older_version_left_is_still_appended(tmp_path):
    store = MemoryStore()
    line = L.encode({"t": "set-mark", "key": "k", "value": 1}, "w1", 1, 5)
    store.set_mark(OUTBOX, {"writer": "w1", "lines": [line]})
    store.set_mark(OUTBOX_HEAD, {"writer": "w1", "last": 1})
    log = OwnLog(tmp_path / "claims.db.oplog", "w1", clock=lambda: 10)
    log.flush_outbox(store)
    assert log.path.read_text(encoding="utf-8") == line + "\n"
    log.stage(store, [{"t": "set-mark", "key": "k", "value": 2}])
    log.commit_staged()
    texts = log.path.read_text().removesuffix("\n").split("\n")
    assert [L.parse(text)["seq"] for text in texts] == [1, 2]


def test_only_the_lines_the_file_lacks_are_derived_again(tmp_path):
    """A file that has some of the outbox's lines (an append cut short by a full disk) gets
    only the rest, each with its own seq."""
    fact = {"id": "f-1", "subject": {"id": "e-1"}, "predicate": "core/uses",
            "object_kind": "literal", "object_ref": None, "object_lit": "x", "t_valid": 1,
            "recorded_at": 1, "confidence": 0.5, "epistemic": "observation",
            "scope": "project", "source_type": "human"}
    effects = [insert_effect(fact), {"t": "set-mark", "key": "k", "value": 1},
               insert_effect({**fact, "id": "f-2"})]
    items = L.outbox_items(effects, "w1", 4, 9)
    whole = L.outbox_lines(items, "w1", 4, 9)
    assert [L.parse(text)["seq"] for text in whole] == [4, 5, 6]
    assert L.outbox_lines(items, "w1", 4, 9, above=5) == whole[2:]
    assert L.outbox_lines(items, "w1", 4, 9, above=6) == []
    assert whole[0] == L.encode({"t": "insert-fact", "fact": fact_effect(fact)}, "w1", 4, 9)


def test_a_row_gives_the_line_encode_gives_before_and_after_the_outbox_round_trip():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    text = st.text(max_size=30)
    number = st.one_of(st.integers(-2**63, 2**63), st.floats(allow_nan=False,
                                                             allow_infinity=False))

    @settings(max_examples=200)
    @given(lit=st.one_of(st.none(), text), conf=st.floats(0, 1), t=number,
           evidence=st.lists(text, max_size=3), conflicts=st.lists(text, max_size=3),
           reason=st.one_of(st.none(), text), writer=text.filter(bool),
           seq=st.integers(1, 10**9))
    def check(lit, conf, t, evidence, conflicts, reason, writer, seq):
        fact = {"id": "f-1", "subject": {"id": "e-1"}, "predicate": "core/uses",
                "object_kind": "literal", "object_ref": None, "object_lit": lit, "t_valid": t,
                "recorded_at": 1, "confidence": conf, "epistemic": "observation",
                "scope": "project", "source_type": "human", "conflicts": conflicts,
                "evidence": evidence, "invalidation_reason": reason}
        row = fact_row(fact)
        assert L.row_fits(row)
        expected = L.canonical_text({"t": "insert-fact", "fact": fact_effect(fact),
                                     "writer": writer, "seq": seq, "hlc": seq + 5,
                                     "format": L.FORMAT})
        assert L.row_line(row, writer, seq, seq + 5) == expected
        stored = json.loads(json.dumps({"effects": [row]}))["effects"][0]
        assert L.row_line(stored, writer, seq, seq + 5) == expected
    check()


def test_a_fact_whose_values_do_not_fit_a_row_is_kept_as_its_whole_line():
    fact = {"id": "f-1", "subject": {"id": "e-1"}, "predicate": "core/uses",
            "object_kind": "literal", "object_ref": None, "object_lit": {"b": 1, "a": 2},
            "t_valid": 1, "recorded_at": 1, "confidence": 0.5, "epistemic": "observation",
            "scope": "project", "source_type": "human"}
    effect = insert_effect(fact)
    assert isinstance(effect, dict) and effect["t"] == "insert-fact"
    (item,) = L.outbox_items([effect], "w1", 1, 2)
    assert item == L.canonical_text({**effect, "writer": "w1", "seq": 1, "hlc": 2,
                                     "format": L.FORMAT})
    assert not L.row_fits(fact_row(fact)) and not L.row_fits("x") and not L.row_fits([1])


def test_an_older_claimgraph_fails_loudly_on_this_outbox_instead_of_skipping_it(tmp_path):
    """A claimgraph older than the outbox's ``effects`` reads only ``lines`` (its reader is
    copied here as it was): an outbox without them was skipped silently, so what a crash
    left there never reached the log. Now it raises; this version still appends it."""
    store = MemoryStore()
    log = OwnLog(tmp_path / "claims.db.oplog", "w1", clock=lambda: 10)
    log.stage(store, [{"t": "set-mark", "key": "k", "value": 1}])
    log.abandon_staged()  # as if killed after COMMIT: the outbox holds the line, the file not
    box = store.get_mark(OUTBOX)

    def older_reader(seq: int = 0) -> list[str]:
        return [text for text in box.get("lines") or ()
                if (L.parse(text) or {}).get("seq", 0) > seq]

    with pytest.raises(TypeError):
        older_reader()
    log.flush_outbox(store)
    assert [L.parse(text)["seq"] for text in log.path.read_text().split("\n")[:-1]] == [1]


def test_a_templated_line_is_the_text_the_whole_encoding_gives():
    """``row_line`` fills a template per shape of a batch's repeated values: for any values,
    repeated or varying (text with % and NUL, floats that are not finite, bools, None), it
    writes what encoding the whole row writes, when the template is made and when reused."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    text = st.text(alphabet=st.sampled_from('ab%s"\\\x00é\u2028{}:,'), max_size=8)
    value = st.one_of(st.none(), text, st.booleans(), st.integers(-2**70, 2**70),
                      st.floats(allow_nan=True, allow_infinity=True))
    listed = st.lists(text, max_size=2)

    plain = st.one_of(st.none(), text)
    typical = st.one_of(plain, st.integers(-2**70, 2**70), st.floats())  # no bools
    repeated_at, varying_at = L._REPEATED_AT, L._VARYING_AT
    made = []

    def values(kind, at):
        return st.lists(kind, min_size=len(at), max_size=len(at))

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(repeated=st.one_of(values(plain, repeated_at), values(value, repeated_at)),
           varying=st.one_of(values(typical, varying_at), values(value, varying_at)),
           lists=st.one_of(st.just(([], [])), st.tuples(listed, listed)), writer=text,
           seq=st.integers(0, 10**12))
    def check(repeated, varying, lists, writer, seq):
        row: list = [None] * len(L.FACT_ROW_KEYS)
        for at, v in [*zip(repeated_at, repeated), *zip(varying_at, varying)]:
            row[at] = v
        row[L._ROW_CONFLICTS], row[L._ROW_EVIDENCE] = lists
        whole = L._encoded_row_line(row, writer, seq, seq + 1)
        assert L.row_line(row, writer, seq, seq + 1) == whole  # made
        assert L.row_line(list(row), writer, seq, seq + 1) == whole  # reused
        made.append(bool(L._TEMPLATES.get((L._REPEATED_VALUES(row),
                                           tuple(map(type, L._VARYING_VALUES(row)))))))

    for special in (float("nan"), float("inf"), -float("inf"), -0.0, 1e300, 5e-324, True, False,
                    2**70, -1, "", "%s%%", "\x000\x00", 'q"\\'):
        for at in range(len(L.FACT_ROW_KEYS)):
            row = ["p%s", "é\u2028", None, *["x"] * (len(L.FACT_ROW_KEYS) - 3)]
            for key, usual in (("confidence", 0.5), ("t_valid", 7), ("recorded_at", 8),
                               ("last_reinforced_at", 9), ("t_invalid", None)):
                row[L.FACT_ROW_KEYS.index(key)] = usual
            row[L._ROW_CONFLICTS], row[L._ROW_EVIDENCE] = [], []
            assert L.row_line(row, "w%", 3, 4) == L._encoded_row_line(row, "w%", 3, 4)
            if at not in (L._ROW_CONFLICTS, L._ROW_EVIDENCE):
                row[at] = special
            for _ in range(2):
                assert L.row_line(row, "w%", 3, 4) == L._encoded_row_line(row, "w%", 3, 4)
    check()
    assert sum(made) >= 10  # the templates were made and filled, not only bypassed
