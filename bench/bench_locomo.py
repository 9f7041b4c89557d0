"""LoCoMo recall@5/@10 through our search, beside bare SQLite FTS5 BM25 indexes of the same turns.

LoCoMo (a public long-conversation memory benchmark, CC BY-NC) is never part of this
repository: give its JSON file's path. Each conversation becomes its own store, each of its
sessions one episode (as capture records a session), each dialogue turn one fact (the speaker
``x/said`` the turn's text) valid from the session's date and time (as capture dates a fact
by the session that said it; ``--undated`` leaves every fact valid from the load, as this
benchmark did before). Each question of categories 1-4 is
asked through the search the CLI runs (``core.reads.search``, limit 10); a question counts for
recall_any@k when any of its evidence turns is among the first k facts, recall_all@k when all
are. In the same run the same turns go into two bare FTS5 tables (porter and trigram), each
asked the question's words OR-ed and ranked by bm25 (the floor a plain full-text index gives).

``--postgres`` also asks a PostgreSQL store of each conversation (a private cluster started
for the run, tests/pg_cluster.py, one database per conversation): ``ours_postgres`` beside
``ours``, and how often its first ten are the same set (``pg_same_set@10``) and the same order
(``pg_same_order@10``) as SQLite's.

``--split K`` also reports conversations 1..K and K+1.. apart (a ranking tuned on the first
part is judged on the second: the figures on what was not tuned on are the ones to trust).

``--rankings FILE`` writes each question's first ten turn ids (conversation, question number,
ids; no text of the data set) so two runs can be compared question by question.

``--without-neighbours`` ranks without the episode neighbourhood (docs/search.md), to
measure its share against a run with it.

To measure an idea, ``--set MODULE.NAME=VALUE`` (repeatable) sets one of the ranking's
constants (``retrieval.FTS_WEIGHT=0.5``: ``claimgraph.logic.retrieval``, ``query_words`` or
``query_dates``) before any question is asked, on SQLite and PostgreSQL alike. recall_any@1
is reported beside @5 and @10 (a change that lifts a run of weak hits above the best match
shows there first).

Usage: .venv/bin/python bench/bench_locomo.py PATH/locomo.json [--conversations N] [--json]
       [--no-captions] [--split K] [--postgres] [--without-neighbours] [--undated]
       [--rankings FILE] [--set MODULE.NAME=VALUE ...]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from claimgraph.core import Shell
from claimgraph.core.ingest import ingest
from claimgraph.core.reads import search
from claimgraph.core.vocabulary import seed
from claimgraph.opening import open_store

CATEGORIES = (1, 2, 3, 4)
KS = (1, 5, 10)
WORD = re.compile(r"\w+")


def turns(conversation: dict, captions: bool = True) -> list[dict]:
    """Every dialogue turn of every session, in order. A turn that shares a photo carries the
    dataset's caption of it ("[shares a photo of ...]"), as LoCoMo's own text baselines read
    it; ``captions=False`` keeps the spoken words alone. Both sides of the comparison get the
    same texts."""
    out = []
    for key, value in conversation.items():
        if re.fullmatch(r"session_\d+", key) and isinstance(value, list):
            for turn in value:
                text = turn.get("text") or ""
                if captions and turn.get("blip_caption"):
                    text = f"{text} [shares {turn['blip_caption']}]".strip()
                if text:
                    out.append({**turn, "text": text, "session": key})
    return out


def session_time(conversation: dict, session: str) -> int | None:
    """The session's date and time ("1:56 pm on 8 May, 2023") as ms UTC, None if unreadable."""
    text = conversation.get(f"{session}_date_time") or ""
    try:
        stamp = datetime.datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return None
    return int(stamp.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)


def load(sh: Shell, conversation: dict, all_turns: list[dict], dated: bool) -> None:
    """Each session one episode (as capture records a session), its turns valid from the
    session's time when ``dated``."""
    sessions: dict[str, list[dict]] = defaultdict(list)
    for t in all_turns:
        when = session_time(conversation, t["session"]) if dated else None
        sessions[t["session"]].append({"subject": t["speaker"], "predicate": "x/said",
                                       "object": t["text"], "object_kind": "literal",
                                       **({"valid_from": when} if when is not None else {})})
    for said in sessions.values():
        ingest(sh, said)


def bare_index(texts: list[tuple[str, str]], tokenizer: str) -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    con.execute(f"CREATE VIRTUAL TABLE t USING fts5(dia, text, tokenize='{tokenizer}')")
    con.executemany("INSERT INTO t (dia, text) VALUES (?, ?)", texts)
    return con


def bare_search(con: sqlite3.Connection, question: str, trigram: bool) -> list[str]:
    words = [w for w in WORD.findall(question) if len(w) >= (3 if trigram else 1)]
    if not words:
        return []
    match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    rows = con.execute("SELECT dia FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10",
                       (f"text : ({match})",)).fetchall()
    return [r[0] for r in rows]


def ours(sh: Shell, question: str, by_text: dict[str, list[str]]) -> list[str]:
    found: list[str] = []
    for fact in search(sh, question, limit=10)["facts"]:
        for dia in by_text.get(fact.get("object_lit") or "", ()):
            if dia not in found:
                found.append(dia)
    return found


def score(ranked: list[str], evidence: list[str], k: int) -> tuple[bool, bool]:
    top = set(ranked[:k])
    return bool(top & set(evidence)), set(evidence) <= top


def postgres_store(server: str, n: int):
    """A fresh database ``locomo{n}`` on the private cluster, opened as a store."""
    import psycopg
    with psycopg.connect(server, autocommit=True) as con:
        con.execute(f"DROP DATABASE IF EXISTS locomo{n}")
        con.execute(f"CREATE DATABASE locomo{n}")
    return open_store(server.replace("/claimgraph_test?", f"/locomo{n}?"))


def set_constants(assignments: list[str]) -> None:
    """``MODULE.NAME=VALUE``: a ranking constant of ``claimgraph.logic.MODULE`` set to VALUE,
    read as the constant's own type (an unknown module or name is an error)."""
    import importlib
    for assignment in assignments:
        target, _, value = assignment.partition("=")
        module_name, _, name = target.partition(".")
        if module_name not in ("retrieval", "query_words", "query_dates"):
            raise SystemExit(f"--set {assignment}: MODULE is retrieval, query_words or "
                             "query_dates")
        module = importlib.import_module(f"claimgraph.logic.{module_name}")
        current = getattr(module, name, None)
        if not isinstance(current, (int, float)) or isinstance(current, bool):
            raise SystemExit(f"--set {assignment}: {module_name}.{name} is not a number")
        setattr(module, name, type(current)(float(value)))


def run(path: str, limit_conversations: int | None, captions: bool = True,
        split: int | None = None, server: str | None = None, dated: bool = True,
        rankings: list | None = None) -> dict:
    data = json.loads(Path(path).read_text())[:limit_conversations]
    tally: dict[str, dict] = defaultdict(lambda: defaultdict(int))
    latencies: list[float] = []
    # One instant for the load and the questions: every turn is recorded at the same time, so
    # no milliseconds between two loads' writes tell equal turns apart (their order would move
    # from run to run); the ranking's own tie-breaks decide (docs/search.md, "Ties").
    instant = int(time.time() * 1000)
    with tempfile.TemporaryDirectory() as tmp:
        for n, conv in enumerate(data):
            all_turns = turns(conv["conversation"], captions)
            sh = Shell(store=open_store(str(Path(tmp) / f"c{n}.db")), clock=lambda: instant)
            seed(sh)
            load(sh, conv["conversation"], all_turns, dated)
            pg = None
            if server:
                pg = Shell(store=postgres_store(server, n), clock=lambda: instant)
                seed(pg)
                load(pg, conv["conversation"], all_turns, dated)
            by_text: dict[str, list[str]] = defaultdict(list)
            for t in all_turns:
                by_text[t["text"].strip()].append(t["dia_id"])
                by_text[t["text"]].append(t["dia_id"])
            pairs = [(t["dia_id"], t["text"]) for t in all_turns]
            porter, trigram = bare_index(pairs, "porter unicode61"), bare_index(pairs, "trigram")
            for qa in conv["qa"]:
                if qa.get("category") not in CATEGORIES or not qa.get("evidence"):
                    continue
                evidence = [e.strip() for e in qa["evidence"]]
                started = time.perf_counter()
                mine = ours(sh, qa["question"], by_text)
                latencies.append(time.perf_counter() - started)
                if rankings is not None:
                    rankings.append([n, len(rankings), mine])
                runs = {"ours": mine, "bm25_porter": bare_search(porter, qa["question"], False),
                        "bm25_trigram": bare_search(trigram, qa["question"], True)}
                if pg is not None:
                    runs["ours_postgres"] = ours(pg, qa["question"], by_text)
                part = ("" if split is None
                        else f"1-{split}/" if n < split else f"{split + 1}-{len(data)}/")
                cats = ["all", f"cat{qa['category']}"]
                for cat in cats + ([part + c for c in cats] if part else []):
                    tally[cat]["n"] += 1
                    for name, ranked in runs.items():
                        for k in KS:
                            hit_any, hit_all = score(ranked, evidence, k)
                            tally[cat][f"{name}_any@{k}"] += hit_any
                            tally[cat][f"{name}_all@{k}"] += hit_all
                    if pg is not None:
                        theirs = runs["ours_postgres"][:10]
                        tally[cat]["pg_same_set@10"] += set(theirs) == set(mine[:10])
                        tally[cat]["pg_same_order@10"] += theirs == mine[:10]
            sh.store.close()
            if pg is not None:
                pg.store.close()
    report = {cat: {key: (value if key == "n" else round(value / t["n"], 3))
                    for key, value in sorted(t.items())} for cat, t in sorted(tally.items())}
    ordered = sorted(latencies)
    report["latency_ms"] = {"p50": round(statistics.median(ordered) * 1000, 2),
                            "p95": round(ordered[int(len(ordered) * 0.95) - 1] * 1000, 2)}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--conversations", type=int)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-captions", action="store_true",
                        help="leave out the captions of shared photos")
    parser.add_argument("--postgres", action="store_true",
                        help="also rank on PostgreSQL (a private cluster) and compare")
    parser.add_argument("--split", type=int,
                        help="also report conversations 1..K and the rest apart")
    parser.add_argument("--undated", action="store_true",
                        help="leave every turn valid from the load, not its session's time")
    parser.add_argument("--without-neighbours", action="store_true",
                        help="rank without the episode neighbourhood (to measure its share)")
    parser.add_argument("--rankings", metavar="FILE",
                        help="write each question's first ten turn ids (no text) to FILE, to"
                             " compare two runs")
    parser.add_argument("--set", action="append", default=[], metavar="MODULE.NAME=VALUE",
                        help="set a ranking constant (retrieval.FTS_WEIGHT=0.5) first")
    args = parser.parse_args()
    set_constants(args.set)
    if args.without_neighbours:
        from claimgraph.logic import retrieval
        retrieval.NEIGHBOUR_SOURCES = 0
    rankings: list | None = [] if args.rankings else None
    if not args.postgres:
        report = run(args.path, args.conversations, not args.no_captions, args.split,
                     dated=not args.undated, rankings=rankings)
    else:
        from bench_postgres import cluster
        tmp = Path(tempfile.mkdtemp(prefix="claimgraph-locomo-pg-"))
        tmp.chmod(0o755)  # the cluster runs as the postgres user when we are root
        # A server store keeps its sidecar files under $XDG_DATA_HOME/claimgraph/servers/: the
        # benchmark's belong in its own scratch directory, not in the person's home.
        os.environ["XDG_DATA_HOME"] = str(tmp / "data")
        pg = cluster()
        try:
            report = run(args.path, args.conversations, not args.no_captions, args.split,
                         pg.start(tmp / "cluster"), not args.undated, rankings)
        finally:
            pg.stop(tmp / "cluster")
            shutil.rmtree(tmp, ignore_errors=True)
    if args.rankings:
        Path(args.rankings).write_text(json.dumps(rankings))
    if args.json:
        print(json.dumps(report, indent=1))
        return
    for cat, row in report.items():
        if cat == "latency_ms":
            print(f"latency_ms {row}")
            continue
        print(f"{cat:9} n={row['n']:4}  " + "  ".join(
            f"{name} any@1={row[f'{name}_any@1']:.3f} any@5={row[f'{name}_any@5']:.3f}"
            f" any@10={row[f'{name}_any@10']:.3f}"
            for name in ("ours", "bm25_porter", "bm25_trigram", "ours_postgres")
            if f"{name}_any@5" in row)
            + (f"  pg_same_set@10={row['pg_same_set@10']:.3f}" if "pg_same_set@10" in row else ""))


if __name__ == "__main__":
    main()
