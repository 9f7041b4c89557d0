"""bench/memory/gate.py: a capture change judged on the repositories it was not designed on."""

from __future__ import annotations

import importlib.util
import json
from hashlib import sha1
from pathlib import Path

import pytest

GATE = Path(__file__).resolve().parents[1] / "bench" / "memory" / "gate.py"
T_DESIGN = "claude-code/own__designed__s1.jsonl"
T_HELD = "claude-code/own__held__s2.jsonl"


@pytest.fixture(scope="module")
def gate():
    spec = importlib.util.spec_from_file_location("memory_gate", GATE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def scored(folder: Path, facts: dict[str, list[str]], found: dict[str, bool]) -> Path:
    """One set "s" whose transcripts admit ``facts`` and find gold ``g1`` (high) as ``found``."""
    folder.mkdir()
    items = [{"transcript": t, "facts": [{"text": x, "predicate": "x/decided"} for x in texts],
              "gold": [{"id": "g1", "importance": "high", "as": "x" if found[t] else None}],
              "traps": []} for t, texts in facts.items()]
    (folder / "s.json").write_text(json.dumps({"set": "s", "per_transcript": items}))
    return folder


def verdicts(path: Path, rows: list[tuple[str, str, str]]) -> Path:
    """A verdict file as review.py writes it: pinned to a digest of the whole text."""
    path.write_text("".join(f"{v}\t{t}\t{x}\t#{sha1(x.encode()).hexdigest()[:12]}\n"
                            for v, t, x in rows))
    return path


def run(gate, tmp_path, after_held, found_held=False, rows=(), extra=()):
    base = scored(tmp_path / "base",
                  {T_DESIGN: ["d keep", "d noise"], T_HELD: ["h keep", "h noise"]},
                  {T_DESIGN: False, T_HELD: True})
    cand = scored(tmp_path / "cand", {T_DESIGN: ["d keep"], T_HELD: after_held},
                  {T_DESIGN: False, T_HELD: found_held})
    v = verdicts(tmp_path / "v.tsv", [("K", T_DESIGN, "d keep"), ("N", T_DESIGN, "d noise"),
                                      ("K", T_HELD, "h keep"), ("N", T_HELD, "h noise"),
                                      *rows])
    return gate.main(["--base", str(base), "--cand", str(cand), "--verdicts", str(v),
                      "--design", "own/designed", *extra])


def test_a_gain_on_held_out_repositories_passes(gate, tmp_path):
    assert run(gate, tmp_path, ["h keep"], found_held=True) == 0


def test_a_gain_only_where_the_change_was_designed_fails(gate, tmp_path, capsys):
    assert run(gate, tmp_path, ["h keep", "h noise"], found_held=True) == 1
    assert "in-sample only" in capsys.readouterr().out


def test_a_kept_fact_removed_on_held_out_fails(gate, tmp_path, capsys):
    assert run(gate, tmp_path, ["h noise"], found_held=True) == 1
    assert "kept fact(s) removed" in capsys.readouterr().out


def test_a_lost_high_gold_fact_and_an_unread_fact_fail(gate, tmp_path, capsys):
    assert run(gate, tmp_path, ["h keep", "h new"], found_held=False) == 1
    out = capsys.readouterr().out
    assert "high gold fact(s) lost" in out and "nobody has read" in out


def test_identical_means_nothing_changed(gate, tmp_path):
    assert run(gate, tmp_path, ["h keep", "h noise"], found_held=True, extra=["--identical"]) == 1


def test_a_transcript_or_set_scored_on_one_side_only_fails(gate, tmp_path, capsys):
    """A candidate run that lost a transcript (or a whole set) must not pass on the rest."""
    base = scored(tmp_path / "base", {T_DESIGN: ["d keep"], T_HELD: ["h keep"]},
                  {T_DESIGN: False, T_HELD: True})
    cand = scored(tmp_path / "cand", {T_DESIGN: ["d keep"]}, {T_DESIGN: False})
    v = verdicts(tmp_path / "v.tsv", [("K", T_DESIGN, "d keep"), ("K", T_HELD, "h keep")])
    args = ["--base", str(base), "--cand", str(cand), "--verdicts", str(v),
            "--design", "own/designed"]
    assert gate.main(args) == 1
    assert "scored on one side only" in capsys.readouterr().out
    (tmp_path / "cand" / "s.json").rename(tmp_path / "cand" / "other.json.bak")
    assert gate.main(args) == 1  # nothing scored at all on the candidate's side
    assert "scored on one side only" in capsys.readouterr().out


def test_a_set_asked_for_and_scored_on_neither_side_fails(gate, tmp_path, capsys):
    assert run(gate, tmp_path, ["h keep"], found_held=True, extra=["--sets", "s", "t"]) == 1
    assert "scored on one side only: t (set)" in capsys.readouterr().out
