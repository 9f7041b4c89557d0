"""bench/memory/shown.py: each line of a SessionStart block mapped back to its stored fact and
the fact to its verdict of record (the pure part; an invented session, not gold text)."""

from __future__ import annotations

import importlib.util
import sys
from hashlib import sha1
from pathlib import Path

import pytest

MEMORY = Path(__file__).resolve().parents[1] / "bench" / "memory"
T1 = "claude-code/own__kite__s1.jsonl"
T2 = "claude-code/own__kite__s2.jsonl"


@pytest.fixture(scope="module")
def shown():
    sys.path.insert(0, str(MEMORY))
    spec = importlib.util.spec_from_file_location("memory_shown", MEMORY / "shown.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NAMES = {"e-kite": "kite", "e-grpc": "gRPC", "e-lib": "src/lib.rs"}


def fact(fid: str, pred: str, obj: str, subject: str = "e-kite", entity: bool = False,
         invalid: bool = False) -> dict:
    return {"id": fid, "record": "fact", "subject": subject, "predicate": pred,
            "object_lit": None if entity else obj, "object_ref": obj if entity else None,
            "scope": "/home/someone/kite", "t_invalid": "2026-03-02T00:00:00Z" if invalid
            else None}


FACTS = [
    fact("f1", "x/decided", "ship the wheel only"),
    fact("f2", "x/decided", "ship the wheel only on Linux"),  # f1's statement is its prefix
    fact("f3", "core/prefers", "e-grpc", entity=True),
    fact("f4", "x/convention", "run tests with tox"),
    fact("f5", "x/uses", "the old cache", invalid=True),
    fact("f6", "x/uses", "the new cache"),
    fact("f7", "x/port", "8080"),
    fact("f8", "x/port", "9090"),
    fact("f9", "core/defined-in", "e-lib", subject="e-grpc", entity=True),
    fact("f10", "x/role", "never shown anywhere"),
    fact("f11", "x/state", "left: 2 commits → pushed", invalid=True),
    fact("f12", "x/state", "left: 3 commits → not pushed"),
]
BLOCK = """<claimgraph-context>
## Project memory — compiled by claimgraph (as of 2026-03-03)

What claimgraph remembers for this project (/home/someone/kite) and for the user.

### Standing decisions
- kite decided "ship the wheel only on Linux" (you said, since 2026-03-01)
- kite decided "ship the wheel only" (you asked, done, since 2026-03-01)
- kite convention "run tests with tox" (tox.ini, since 2026-03-01)

### Open conflicts (awaiting review — `claimgraph conflicts`)
- kite port: 2 claims in contention — "8080" / "9090"

### Changed recently
- kite uses: "the old cache" → "the new cache" (2026-03-02)
- kite state: "left: 2 commits → pushed" → "left: 3 commits → not pushed" (2026-03-02)

### Current facts (by effective confidence)
- kite prefers gRPC (agent's note, 0.55)
- gRPC defined-in src/lib.rs (seen, 0.70)
- kite mentions "something no fact says" (seen, 0.70)
- … 3 more — query the graph
</claimgraph-context>"""


def verdicts(shown, rows):
    return shown.Verdicts([[v, t, x[:160], "#" + sha1(x.encode()).hexdigest()[:12]]
                           for v, t, x in rows])


def test_block_lines_keep_sections_and_drop_the_more_line(shown):
    lines = shown.block_lines(BLOCK)
    assert [s for s, _ in lines].count("Standing decisions") == 3
    assert not any("more — query" in line for _, line in lines)
    assert lines[-1] == ("Current facts (by effective confidence)",
                         '- kite mentions "something no fact says" (seen, 0.70)')


def test_each_line_maps_to_its_fact_and_tier(shown):
    mapped = [shown.map_line(line, FACTS, NAMES) for _, line in shown.block_lines(BLOCK)]
    assert mapped == [
        (["f2"], "you said"),  # the longer statement wins over its prefix f1
        (["f1"], "you asked, done"),
        (["f4"], "a file"),
        (["f7", "f8"], "conflict"),
        (["f6"], "changed"),  # the new value, not the old one it replaced
        (["f12"], "changed"),  # objects that hold ": " and " → " themselves
        (["f3"], "agent's note"),
        (["f9"], "seen"),
        ([], ""),
    ]


def test_review_text_is_the_scorers(shown):
    assert shown.review_text(FACTS[2], NAMES) == "kite | prefers | gRPC"
    assert shown.review_text(FACTS[0], NAMES) == "kite | decided | ship the wheel only"


def test_the_worst_verdict_over_the_repositorys_transcripts_wins(shown):
    text = "kite | decided | ship the wheel only"
    known = verdicts(shown, [("K", T1, text), ("W", T2, text)])
    assert shown.judge([text], [T1, T2], known) == ("W", [T1, T2], False)
    assert shown.judge([text], [T1], known) == ("K", [T1], False)


def test_a_readers_own_verdict_only_fills_what_none_of_record_judged(shown):
    text = "kite | prefers | gRPC"
    mine = verdicts(shown, [("N", T2, text)])
    assert shown.judge([text], [T1, T2], verdicts(shown, []), mine) == ("N", [], True)
    of_record = verdicts(shown, [("K", T1, text)])
    assert shown.judge([text], [T1, T2], of_record, mine) == ("K", [T1], False)
    assert shown.judge([text], [T1, T2], verdicts(shown, [])) == ("?", [], False)


def test_tally_counts_verdicts_per_tier(shown):
    lines = [{"tier": "seen", "verdict": "K", "mine": False},
             {"tier": "seen", "verdict": "W", "mine": True},
             {"tier": "you said", "verdict": "K", "mine": False}]
    assert shown.tally(lines) == {"shown": 3, "verdicts": {"K": 2, "W": 1}, "mine": 1,
                                  "by_tier": {"seen": {"K": 1, "W": 1}, "you said": {"K": 1}}}


def test_blind_sets_are_refused_without_the_flag(shown, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["shown.py", "--out", str(tmp_path), shown.BLIND[0]])
    assert shown.main() == 2
    assert "refusing BLIND" in capsys.readouterr().err
    assert not (tmp_path / "shown.json").exists()


def test_stamps_of_any_precision_read_as_utc(shown):
    assert shown.epoch_ms("2026-03-01T00:00:01.5Z") == 1772323201500
    assert shown.epoch_ms("2026-03-01T00:00:01.123456789Z") == 1772323201123
    assert shown.epoch_ms("2026-03-01T00:00:01") == 1772323201000


def test_two_facts_cut_to_one_text_take_one_line_each(shown):
    long_a, long_b = "x" * 400 + "a", "x" * 400 + "b"
    facts = [fact("fa", "x/runs", long_a), fact("fb", "x/runs", long_b)]
    line = f'- kite runs "{shown.one_line(long_a)}" (package.json, 0.70)'
    assert line == f'- kite runs "{shown.one_line(long_b)}" (package.json, 0.70)'
    first = shown.map_line(line, facts, NAMES)
    second = shown.map_line(line, facts, NAMES, set(first[0]))
    assert {first[0][0], second[0][0]} == {"fa", "fb"}
