"""Coding-memory retrieval: does a later session's question or task find the fact that answers it?

bench/coding_memory.json holds facts a coding session learned (seven recorded sessions from
five MIT-licensed repositories, plus a handful of handwritten team conventions; its
``sources`` say which) and questions or tasks written for this set, each naming the fact that
answers it. The facts go into one store among ``--distractors`` synthetic facts
(bench/workload.py, which shares their vocabulary: postgres, pytest, migration...). Each ask
runs through the search the CLI uses (limit 10) and through the coach's matching (its query
and full-text limit); recall@k is how often the answering fact is among the first k. Beside
them, in the same run, a bare FTS5 porter BM25 index over the same texts (subject and
statement), asked the words OR-ed.

Asks marked ``blind`` were written before search was ever run on them (the others were
written first and measured while the ranking changed): they are reported apart, as are the
figures per project.

``--closed N`` also records, for each fact, N retired statements of the same subject and
predicate (its words, marked as an earlier one: "Earlier, ..."; with
``--closed-other-words`` "Retired statement N", which shares none), each project's in an episode
of its own, valid for a while and ended before the asks: a store that has lived through
changes. Search shows no closed fact; the figures say whether they cost the current facts
their places (docs/search.md, "The current value first").

Usage: .venv/bin/python bench/bench_coding_memory.py [--distractors 3000] [--misses]
       [--without-neighbours] [--closed N]
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from workload import make_items  # noqa: E402

from claimgraph.core import Shell  # noqa: E402
from claimgraph.core.coach import COACH_FTS_LIMIT  # noqa: E402
from claimgraph.core.ingest import ingest  # noqa: E402
from claimgraph.core.reads import search  # noqa: E402
from claimgraph.core.recall import scoped_search  # noqa: E402
from claimgraph.core.vocabulary import seed  # noqa: E402
from claimgraph.logic.coach import coach_query  # noqa: E402
from claimgraph.opening import open_store  # noqa: E402

KS = (1, 5, 10)
WORD = re.compile(r"\w+")


def load(sh: Shell, facts: list[dict]) -> None:
    """Each project's facts as one episode, in the file's order (as capture records a
    session: search lets a fact borrow from its episode's neighbours)."""
    projects: dict[str, list[dict]] = defaultdict(list)
    for f in facts:
        projects[f["project"]].append({"subject": f["subject"], "predicate": f["predicate"],
                                       "object": f["text"], "object_kind": "literal"})
    _ingest_each(sh, projects)


def _ingest_each(sh: Shell, projects: dict[str, list[dict]]) -> None:
    """Ingest each project's items; one a predicate refuses is retried as ``x/notes``."""
    for items in projects.values():
        result = ingest(sh, items)
        retry = [dict(item, predicate="x/notes") for item, error in
                 ((i, e) for e in result["errors"] for i in [e["input"]])]
        if retry:
            ingest(sh, retry)


def load_closed(sh: Shell, facts: list[dict], per_fact: int, other_words: bool = False) -> None:
    """``per_fact`` retired statements of each fact's subject and predicate, ended a day
    before the shell's now (one episode per project, as an earlier session records them).
    ``other_words``: statements that share no word with the fact ("Retired statement 2"), so
    the word index's statistics are those of a store without them."""
    from claimgraph.logic.timeutil import DAY_MS
    now = sh.now()
    projects: dict[str, list[dict]] = defaultdict(list)
    for f in facts:
        for n in range(per_fact):
            projects[f["project"]].append({
                "subject": f["subject"], "predicate": f["predicate"], "object_kind": "literal",
                "object": (f"Retired statement {n + 1}" if other_words
                           else f"Earlier ({n + 1}), {f['text']}"),
                "valid_from": now - (40 - n) * DAY_MS, "valid_until": now - DAY_MS})
    _ingest_each(sh, projects)


def bare(facts: list[dict], noise: list[dict]) -> sqlite3.Connection:
    """The same texts (distractors too) in a plain porter index."""
    con = sqlite3.connect(":memory:")
    con.execute("CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, text, tokenize='porter unicode61')")
    con.executemany("INSERT INTO t VALUES (?, ?)", [(f["id"], f"{f['subject']} {f['text']}")
                                                   for f in facts])
    con.executemany("INSERT INTO t VALUES (?, ?)", [(None, f"{n['subject']} {n['object']}")
                                                   for n in noise])
    return con


def bare_rank(con: sqlite3.Connection, ask: str) -> list[str]:
    words = WORD.findall(ask)
    match = " OR ".join('"' + w + '"' for w in words)
    return [r[0] for r in con.execute("SELECT id FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10",
                                      (f"text : ({match})",))]


def run(distractors: int, show_misses: bool, closed: int = 0,
        closed_other_words: bool = False) -> dict:
    data = json.loads((HERE / "coding_memory.json").read_text())
    facts, asks = data["facts"], data["questions"]
    id_of = {f["text"]: f["id"] for f in facts}
    tally: dict[str, float] = defaultdict(float)
    misses = []
    with tempfile.TemporaryDirectory() as tmp:
        sh = Shell(store=open_store(str(Path(tmp) / "coding.db")))
        seed(sh)
        noise = make_items(distractors, seed=3)
        if noise:
            ingest(sh, noise)
        if closed:
            load_closed(sh, facts, closed, closed_other_words)
        load(sh, facts)
        con = bare(facts, noise)
        for ask in asks:
            found = [id_of.get(f.get("object_lit")) for f in
                     search(sh, ask["ask"], limit=10)["facts"]]
            query = coach_query(ask["ask"])
            coached = [id_of.get(f.get("object_lit")) for f in
                       (scoped_search(sh, query, None, fts_limit=COACH_FTS_LIMIT,
                                      neighbours=False)["facts"]
                        if query else [])][:10]
            runs = {"search": found, "coach": coached, "bm25_porter": bare_rank(con, ask["ask"])}
            for name, ranked in runs.items():
                for k in KS:
                    hit = ask["answer"] in ranked[:k]
                    tally[f"{name}@{k}"] += hit
                    if ask.get("blind"):
                        tally[f"blind {name}@{k}"] += hit
            tally["blind asks"] += bool(ask.get("blind"))
            project = f"project {ask['answer'].split(':')[0]} search@5"
            tally[project] += ask["answer"] in found[:5]
            tally[project.replace("search@5", "asks")] += 1
            if show_misses and ask["answer"] not in found[:5]:
                misses.append({"ask": ask["ask"], "answer": ask["answer"], "got": found[:5]})
        sh.store.close()
    blind = tally.pop("blind asks")
    report = {}
    for key, value in sorted(tally.items()):
        if key.startswith("project ") and key.endswith(" asks"):
            continue
        if key.startswith("project "):
            value /= tally[key.replace("search@5", "asks")]
        else:
            value /= blind if key.startswith("blind ") else len(asks)
        report[key] = round(value, 3)
    report["blind_asks"] = int(blind)
    report["asks"], report["facts"], report["distractors"] = len(asks), len(facts), distractors
    report["closed_per_fact"] = closed
    report["closed_other_words"] = closed_other_words
    if show_misses:
        report["misses"] = misses
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--distractors", type=int, default=3000)
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--without-neighbours", action="store_true",
                        help="rank without the episode neighbourhood (to measure its share)")
    parser.add_argument("--closed", type=int, default=0, metavar="N",
                        help="N retired statements of each fact's subject and predicate")
    parser.add_argument("--closed-other-words", action="store_true",
                        help="with --closed: retired statements sharing no word with the fact")
    args = parser.parse_args()
    if args.without_neighbours:
        from claimgraph.logic import retrieval
        retrieval.NEIGHBOUR_SOURCES = 0
    print(json.dumps(run(args.distractors, args.misses, args.closed, args.closed_other_words),
                     indent=1))


if __name__ == "__main__":
    main()
